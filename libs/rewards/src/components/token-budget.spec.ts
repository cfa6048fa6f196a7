import { describe, expect, it } from 'vitest';
import { tokenBudgetScore } from './token-budget';

const linear = { alpha: 0.2, variant: 'capped_linear' } as const;
const exponential = { alpha: 0.2, variant: 'exponential' } as const;

describe('tokenBudgetScore', () => {
  it('capped_linear: 1 − spent / (alpha · context), clipped at 0', () => {
    expect(tokenBudgetScore({ completion: 0, subcall: 0 }, 16_000, linear)).toEqual({
      score: 1,
      spent: 0,
      budget: 3200,
    });
    expect(tokenBudgetScore({ completion: 800, subcall: 800 }, 16_000, linear).score).toBeCloseTo(0.5, 12);
    expect(tokenBudgetScore({ completion: 3200, subcall: 0 }, 16_000, linear).score).toBe(0);
    expect(tokenBudgetScore({ completion: 100_000, subcall: 100_000 }, 16_000, linear).score).toBe(0);
  });

  it('counts sub-call tokens like root tokens', () => {
    const root = tokenBudgetScore({ completion: 1000, subcall: 0 }, 16_000, linear).score;
    const sub = tokenBudgetScore({ completion: 0, subcall: 1000 }, 16_000, linear).score;
    expect(root).toBe(sub);
  });

  it('is relative to the context size', () => {
    const small = tokenBudgetScore({ completion: 500, subcall: 0 }, 4_000, linear).score;
    const large = tokenBudgetScore({ completion: 500, subcall: 0 }, 200_000, linear).score;
    expect(small).toBeCloseTo(0.375, 12);
    expect(large).toBeGreaterThan(small);
  });

  it('exponential: exp(−spent / budget), 1/e at the budget, still above 0 at 10× the budget', () => {
    expect(tokenBudgetScore({ completion: 3200, subcall: 0 }, 16_000, exponential).score).toBeCloseTo(Math.exp(-1), 12);
    expect(tokenBudgetScore({ completion: 32_000, subcall: 0 }, 16_000, exponential).score).toBeGreaterThan(0);
  });

  it('a larger alpha is more lenient', () => {
    const strict = tokenBudgetScore({ completion: 1000, subcall: 0 }, 16_000, linear).score;
    const lenient = tokenBudgetScore({ completion: 1000, subcall: 0 }, 16_000, { ...linear, alpha: 0.5 }).score;
    expect(lenient).toBeGreaterThan(strict);
  });
});
