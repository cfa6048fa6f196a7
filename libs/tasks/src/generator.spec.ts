import { describe, expect, it } from 'vitest';
import { TasksError, TasksErrorCode } from './errors';
import {
  generateTask,
  generateTasks,
  parseMix,
  parseVariantRates,
  planTaskTypes,
  resolveGenerateOptions,
} from './generator';

describe('resolveGenerateOptions', () => {
  it('fills in the documented defaults', () => {
    const resolved = resolveGenerateOptions({ split: 'heldout' });
    expect(resolved).toMatchObject({
      n: 500,
      seed: 0,
      minTokens: 4096,
      maxTokens: 200_000,
      lengthDistribution: 'log-uniform',
    });
    const expectedMix = { niah: 0.4, extractive: 0.2, multi_needle: 0.3, counting: 0.1 };
    for (const [type, weight] of Object.entries(expectedMix))
      expect(resolved.mix[type as keyof typeof expectedMix]).toBeCloseTo(weight, 12);
    expect(resolved.variantRates.counting).toEqual({ plural_trap: 0.3, compound_trap: 0.3, case_trap: 0.3 });
  });

  it.each([
    [{ minTokens: 100 }, /min tokens/],
    [{ minTokens: 5000, maxTokens: 4096 }, /max tokens/],
    [{ n: -1 }, /n must be/],
    [{ mix: { niah: 0 } }, /all be zero/],
    [{ mix: { essay: 1 } }, /unknown task type/],
    [{ variantRates: { niah: { mystery: 0.5 } } }, /unknown variant "mystery"/],
    [{ variantRates: { niah: { near_miss: 1.5 } } }, /\[0, 1\]/],
  ])('rejects %o with a clear message', (bad, message) => {
    const attempt = () => resolveGenerateOptions({ split: 'train', ...(bad as object) });
    expect(attempt).toThrow(TasksError);
    expect(attempt).toThrow(message);
  });

  it('rejects bad options before generating anything, and out-of-range indices', () => {
    expect(() => generateTasks({ split: 'train', minTokens: 1 })).toThrow(TasksError);
    try {
      generateTask({ split: 'eval', n: 3 }, 3);
      expect.unreachable();
    } catch (error) {
      expect((error as TasksError).code).toBe(TasksErrorCode.InvalidOptions);
    }
  });
});

describe('planTaskTypes', () => {
  it('gives exact mix counts in a seeded order', () => {
    const plan = planTaskTypes(resolveGenerateOptions({ split: 'train', seed: 1 }));
    const count = (t: string) => plan.filter((p) => p === t).length;
    expect([count('niah'), count('extractive'), count('multi_needle'), count('counting')]).toEqual([
      400, 200, 300, 100,
    ]);
    expect(plan.slice(0, 20)).not.toEqual([...plan.slice(0, 20)].sort());
    expect(planTaskTypes(resolveGenerateOptions({ split: 'train', seed: 1 }))).toEqual(plan);
  });

  it('rounds by largest remainder', () => {
    const plan = planTaskTypes(resolveGenerateOptions({ split: 'eval', n: 7, mix: { niah: 1, counting: 1 } }));
    expect(plan.filter((p) => p === 'niah').length + plan.filter((p) => p === 'counting').length).toBe(7);
    expect(Math.abs(plan.filter((p) => p === 'niah').length - 3.5)).toBe(0.5);
  });
});

describe('parsers', () => {
  it('parse mixes and variant rates', () => {
    expect(parseMix('niah=0.4, counting=0.6')).toEqual({ niah: 0.4, counting: 0.6 });
    expect(parseVariantRates('niah.near_miss=0.8,counting.case_trap=0')).toEqual({
      niah: { near_miss: 0.8 },
      counting: { case_trap: 0 },
    });
    expect(() => parseMix('niah')).toThrow(/type=weight/);
    expect(() => parseMix('poems=1')).toThrow(/unknown task type/);
    expect(() => parseVariantRates('near_miss=1')).toThrow(/type.variant=rate/);
  });
});
