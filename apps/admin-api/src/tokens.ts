/** Nest injection tokens (tsx/vitest emit no decorator metadata, so every injection names one). */
export const CONFIG = Symbol('AdminApiConfig');
export const LOGGER = Symbol('Logger');
export const METRICS = Symbol('AdminMetrics');
export const RUNS = Symbol('RunService');
export const EVALS = Symbol('EvalService');
export const QUEUES = Symbol('QueueService');
export const HEALTH = Symbol('HealthService');
