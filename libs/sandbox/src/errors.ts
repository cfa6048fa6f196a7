/**
 * Error taxonomy of the sandbox. A step never throws on the host for anything the guest does; it returns one
 * of these codes in `StepResult.error`.
 */
export const STEP_ERROR_CODES = [
  'timeout',
  'cpu_limit',
  'memory_limit',
  'syntax',
  'runtime',
  'llm_limit',
  'step_limit',
  'episode_cpu_limit',
  'worker_crashed',
  'closed',
] as const;

export type StepErrorCode = (typeof STEP_ERROR_CODES)[number];

export interface StepError {
  code: StepErrorCode;
  message: string;
}

/**
 * Whether the episode can take further steps after an error with this code. Limit breaches dispose the
 * isolate (a runaway guest cannot be interrupted any other way), so they end the episode.
 */
export function isEpisodeFatal(code: StepErrorCode): boolean {
  switch (code) {
    case 'syntax':
    case 'runtime':
    case 'llm_limit':
      return false;
    case 'timeout':
    case 'cpu_limit':
    case 'memory_limit':
    case 'step_limit':
    case 'episode_cpu_limit':
    case 'worker_crashed':
    case 'closed':
      return true;
  }
}

/**
 * Whether a step used up its CPU time or its memory, or may have broken its worker process (`StepResult.brokeWorker`):
 * what a client whose episodes should move to low-priority workers does (`OpenEpisodeOptions.priority`). A wall-time
 * `timeout` alone is not: a step can run out of wall time without using the CPU, and a low-priority step on a busy
 * machine runs out of it by waiting for a core, which must not keep its client there.
 */
export function exhaustedResources(result: { error: StepError | null; brokeWorker?: true }): boolean {
  const code = result.error?.code;
  return code === 'cpu_limit' || code === 'episode_cpu_limit' || code === 'memory_limit' || result.brokeWorker === true;
}

/** The one place that words a limit breach for the model's observation. */
export function describeBreach(
  code: Extract<StepErrorCode, 'timeout' | 'cpu_limit' | 'memory_limit' | 'episode_cpu_limit' | 'step_limit'>,
  limit: number,
): string {
  switch (code) {
    case 'timeout':
      return `step exceeded its wall-time limit of ${limit} ms; the REPL was reset and this episode has ended`;
    case 'cpu_limit':
      return `step exceeded its CPU-time limit of ${limit} ms; the REPL was reset and this episode has ended`;
    case 'memory_limit':
      return `step exceeded the memory limit of ${limit} MiB; the REPL was reset and this episode has ended`;
    case 'episode_cpu_limit':
      return `episode exceeded its total CPU-time budget of ${limit} ms; this episode has ended`;
    case 'step_limit':
      return `episode reached its limit of ${limit} steps; this episode has ended`;
  }
}

/**
 * The one place that words a refused oversized value (an `llm()` prompt or chunk, an `answer()`); the guest
 * prelude words `answer()` the same way when it refuses one itself.
 */
export function describeOversize(what: string, chars: number, limitName: string, limit: number): string {
  return `${what} of ${chars} characters exceeds the limit of ${limit} characters (${limitName})`;
}

/**
 * The one check of the recursion limit, in the isolate's `llm()` bridge and in the OpenEnv client (whose server sees
 * a child episode as a root): the refusal of a call at `depth` when it is deeper than `maxDepth`, or null.
 */
export function depthRefusal(depth: number, maxDepth: number): string | null {
  return depth > maxDepth ? `llm() recursion depth limit reached (max depth ${maxDepth})` : null;
}

/** Thrown on the host only for misuse of the pool API (never for anything guest code does). */
export class SandboxPoolError extends Error {
  override name = 'SandboxPoolError';
}
