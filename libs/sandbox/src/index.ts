/**
 * @fathom/sandbox — the RLM's JavaScript REPL: one isolated-vm isolate per episode, run in supervised worker
 * processes, with `ctx`, `print(...)` and a synchronous `llm(prompt, chunk?)` as the guest's globals.
 * See README.md for the guest environment and the limits.
 */
export { SandboxPool } from './pool';
export { OpenEnvSandbox } from './openenv.sandbox';
export { DocCache, documentSha256 } from './doc-cache';
export { DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from './limits';
export {
  STEP_ERROR_CODES,
  SandboxPoolError,
  isEpisodeFatal,
  exhaustedResources,
  type StepError,
  type StepErrorCode,
} from './errors';
export { rewriteTopLevel } from './rewrite';
export type {
  EpisodePriority,
  LlmCallRecord,
  LlmHandler,
  LlmRequest,
  LlmResponse,
  OpenEpisodeOptions,
  SandboxEpisode,
  SandboxPoolOptions,
  SandboxPoolStats,
  StepOptions,
  StepResult,
  WorkerStats,
} from './types';
