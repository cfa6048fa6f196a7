/** Nest injection tokens of the env-service (tsx/vitest emit no decorator metadata, so every injection names one). */
export const CONFIG = Symbol('EnvServiceConfig');
export const LOGGER = Symbol('Logger');
export const METRICS = Symbol('EnvMetrics');
export const EPISODES = Symbol('EpisodeService');
export const CHAT = Symbol('ChatCompletionService');
