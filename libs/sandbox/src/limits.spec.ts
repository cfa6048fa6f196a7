import { describe, expect, it } from 'vitest';
import { DEFAULT_MAX_DEPTH } from '@fathom/contracts';
import { depthRefusal, isEpisodeFatal, STEP_ERROR_CODES } from './errors';
import { DEFAULT_LIMITS, resolveLimits } from './limits';

describe('resolveLimits', () => {
  it('merges overrides and ignores undefined ones', () => {
    const limits = resolveLimits(DEFAULT_LIMITS, { stepCpuMs: 50, maxSteps: undefined });
    expect(limits.stepCpuMs).toBe(50);
    expect(limits.maxSteps).toBe(DEFAULT_LIMITS.maxSteps);
  });

  it('rejects unenforceable values and unknown keys', () => {
    expect(() => resolveLimits(DEFAULT_LIMITS, { memoryMb: 4 })).toThrow(/memoryMb/);
    expect(() => resolveLimits(DEFAULT_LIMITS, { stepCpuMs: 0 })).toThrow(/stepCpuMs/);
    expect(() => resolveLimits(DEFAULT_LIMITS, { maxOutputChars: Number.NaN })).toThrow(/maxOutputChars/);
    expect(() => resolveLimits(DEFAULT_LIMITS, { bogus: 1 } as never)).toThrow(/unknown sandbox limit "bogus"/);
    for (const key of ['toString', 'constructor', '__proto__'])
      expect(() => resolveLimits(DEFAULT_LIMITS, JSON.parse(`{"${key}": 5}`) as never)).toThrow(
        `unknown sandbox limit "${key}"`,
      );
  });

  it('allows maxDepth 0 (no sub-calls at all)', () => {
    expect(resolveLimits(DEFAULT_LIMITS, { maxDepth: 0 }).maxDepth).toBe(0);
  });

  it("takes the run config's one maxDepth default, and refuses a call only when it is deeper", () => {
    expect(DEFAULT_LIMITS.maxDepth).toBe(DEFAULT_MAX_DEPTH);
    expect(depthRefusal(DEFAULT_MAX_DEPTH, DEFAULT_MAX_DEPTH)).toBeNull();
    expect(depthRefusal(DEFAULT_MAX_DEPTH + 1, DEFAULT_MAX_DEPTH)).toBe(
      `llm() recursion depth limit reached (max depth ${DEFAULT_MAX_DEPTH})`,
    );
    expect(depthRefusal(1, 0)).not.toBeNull();
  });
});

describe('isEpisodeFatal', () => {
  it('keeps the episode alive only for errors the guest can recover from', () => {
    const recoverable = STEP_ERROR_CODES.filter((code) => !isEpisodeFatal(code));
    expect(recoverable).toEqual(['syntax', 'runtime', 'llm_limit']);
  });
});
