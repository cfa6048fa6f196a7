import { DEFAULT_MAX_DEPTH } from '@fathom/contracts';

/**
 * Resource limits of one REPL episode. Every limit is enforced by the sandbox itself; breaching one
 * becomes a `StepError` the model sees in its observation, never an exception on the host.
 */
export interface SandboxLimits {
  /** V8 heap limit of the episode's isolate, in MiB (isolated-vm's `memoryLimit`, minimum 8). */
  memoryMb: number;
  /** CPU time one step may use, in ms (polled from `isolate.cpuTime`, so microtask loops are covered too). */
  stepCpuMs: number;
  /** Wall time one step may use, in ms, not counting time spent waiting for `llm()` sub-calls. */
  stepWallMs: number;
  /** CPU time all steps of the episode may use together, in ms. */
  episodeCpuMs: number;
  /** Number of `run()` calls the episode accepts. */
  maxSteps: number;
  /** Characters of `print` output kept per step; the rest is cut and counted in a marker. */
  maxOutputChars: number;
  /** `llm()` calls the episode may make (refused calls do not count). */
  maxLlmCalls: number;
  /**
   * Deepest sub-call level: an `llm()` call from an episode at depth `d` is a call at depth `d + 1` and is
   * refused when `d + 1 > maxDepth`.
   */
  maxDepth: number;
  /** Prompt + completion tokens all `llm()` calls of the episode may spend together. */
  maxSubcallTokens: number;
  /** How long one `llm()` call may wait for the handler, in ms. */
  subcallTimeoutMs: number;
  /** Characters an `answer(value)` may have (as text); a longer one throws a `RangeError` in the guest. */
  maxAnswerChars: number;
  /** Characters of an `llm()` prompt; a longer one is refused with an `LlmError` before it leaves the isolate. */
  maxLlmPromptChars: number;
  /**
   * Characters of an `llm()` chunk; refused like an oversized prompt. Large on purpose: a big chunk legitimately
   * becomes a child episode's `ctx`, but a chunk of tens of MB must not be copied through the worker.
   */
  maxLlmChunkChars: number;
}

/** Defaults sized for the training loop on a laptop-class CPU (200K-token contexts, a few sub-calls). */
export const DEFAULT_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryMb: 128,
  stepCpuMs: 2_000,
  stepWallMs: 5_000,
  episodeCpuMs: 20_000,
  maxSteps: 32,
  maxOutputChars: 4_000,
  maxLlmCalls: 16,
  maxDepth: DEFAULT_MAX_DEPTH,
  maxSubcallTokens: 32_000,
  subcallTimeoutMs: 60_000,
  maxAnswerChars: 10_000,
  maxLlmPromptChars: 4_000,
  maxLlmChunkChars: 400_000,
});

/** Merges overrides onto a base, rejecting values that cannot be enforced (non-positive, non-finite). */
export function resolveLimits(base: SandboxLimits, overrides: Partial<SandboxLimits> = {}): SandboxLimits {
  const merged: SandboxLimits = { ...base };
  for (const [key, value] of Object.entries(overrides) as [keyof SandboxLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Object.hasOwn(base, key)) throw new RangeError(`unknown sandbox limit "${key}"`);
    const min = key === 'memoryMb' ? 8 : key === 'maxDepth' ? 0 : 1;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min) {
      throw new RangeError(`sandbox limit "${key}" must be a finite number >= ${min}, got ${String(value)}`);
    }
    merged[key] = value;
  }
  return merged;
}
