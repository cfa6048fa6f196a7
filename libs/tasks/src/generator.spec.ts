import { describe, expect, it } from 'vitest';
import { TasksError } from './errors';
import { Rng, type Task } from '@fathom/contracts';
import {
  generateTask,
  generateTasks,
  parseMix,
  parseVariantRates,
  planFamilies,
  planLengthStrata,
  planTaskTypes,
  resolveGenerateOptions,
  sampleTargetTokens,
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
    const expectedMix = {
      niah: 0.15,
      extractive: 0.15,
      multi_needle: 0.15,
      counting: 0.1,
      tracking: 0.25,
      multi_hop: 0.2,
    };
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
    [{ variantRates: { niah: { negation: 1.5 } } }, /\[0, 1\]/],
    [{ inventedShare: -0.1 }, /inventedShare must be in \[0, 1\], got -0.1/],
    [{ inventedDistractorShare: Number.NaN }, /inventedDistractorShare must be in \[0, 1\]/],
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
      expect((error as TasksError).code).toBe('INVALID_OPTIONS');
    }
  });
});

describe('planTaskTypes', () => {
  it('gives exact mix counts in a seeded order', () => {
    const plan = planTaskTypes(resolveGenerateOptions({ split: 'train', seed: 1 }));
    const count = (t: string) => plan.filter((p) => p === t).length;
    expect(['niah', 'extractive', 'multi_needle', 'counting', 'tracking', 'multi_hop'].map(count)).toEqual([
      150, 150, 150, 100, 250, 200,
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
    expect(parseMix('niah=0.4, tracking=0.6')).toEqual({ niah: 0.4, tracking: 0.6 });
    expect(parseVariantRates('niah.negation=0.8,counting.case_trap=0')).toEqual({
      niah: { negation: 0.8 },
      counting: { case_trap: 0 },
    });
    expect(() => parseMix('niah')).toThrow(/type=weight/);
    expect(() => parseMix('poems=1')).toThrow(/unknown task type/);
    expect(() => parseVariantRates('near_miss=1')).toThrow(/type.variant=rate/);
  });
});

describe('planFamilies', () => {
  it('gives train and eval the train families, and each heldout type half of each family', () => {
    for (const split of ['train', 'eval'] as const) {
      const resolved = resolveGenerateOptions({ split, n: 50 });
      expect(new Set(planFamilies(resolved, planTaskTypes(resolved)))).toEqual(new Set(['train']));
    }
    const resolved = resolveGenerateOptions({ split: 'heldout', n: 400, seed: 3 });
    const plan = planTaskTypes(resolved);
    const families = planFamilies(resolved, plan);
    for (const type of new Set(plan)) {
      const ofType = families.filter((_, i) => plan[i] === type);
      const heldout = ofType.filter((f) => f === 'heldout').length;
      expect(Math.abs(heldout - ofType.length / 2), type).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('context lengths', () => {
  const targets = (split: 'train' | 'heldout', n: number, bounds = {}) => {
    const resolved = resolveGenerateOptions({ split, n, seed: 9, ...bounds });
    const strata = planLengthStrata(resolved);
    return strata.map((stratum, i) => sampleTargetTokens(new Rng(i), resolved, stratum));
  };

  it('are log-uniform between the bounds: about half below the geometric mean', () => {
    const lengths = targets('train', 400, { minTokens: 512, maxTokens: 8192 });
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(512);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(8192);
    const below = lengths.filter((t) => t < 2048).length / lengths.length;
    expect(Math.abs(below - 0.5)).toBeLessThan(0.02);
  });

  it.each([4, 10, 37, 200, 500])('put at least a quarter of a %i-task heldout split above 64K tokens', (n) => {
    const lengths = targets('heldout', n);
    expect(lengths.filter((t) => t > 65_536).length / n).toBeGreaterThanOrEqual(0.25);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(4096);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(200_000);
    expect(lengths.filter((t) => t < 16_384).length).toBeGreaterThan(0);
  });
});

describe('invented shares', () => {
  const base = { split: 'train', n: 40, seed: 5, minTokens: 512, maxTokens: 2048 } as const;
  const isInvented = (task: Task) => task.meta!.frames.some((id) => id.endsWith('.invented'));

  it('invent the wording of a share of tasks; the others are byte-identical to tasks generated without it', () => {
    const plain = [...generateTasks(base)];
    const mixed = [...generateTasks({ ...base, inventedShare: 0.5, inventedDistractorShare: 0.5 })];
    const invented = mixed.filter(isInvented);
    expect(invented.length).toBeGreaterThan(8);
    expect(invented.length).toBeLessThan(40);
    mixed.forEach((task, i) => {
      if (!isInvented(task)) expect(JSON.stringify(task)).toBe(JSON.stringify(plain[i]));
    });
  });

  it('keep the ground truth: every needle of an invented task is in its context and names its key and value', () => {
    for (const task of generateTasks({ ...base, mix: { niah: 1, extractive: 1 }, inventedShare: 1 })) {
      expect(task.meta!.frames).toContain(`${task.type}.needle.invented`);
      const needle = task.meta!.subquestions[0].evidence[0];
      expect(task.context).toContain(needle);
      expect(needle).toContain(task.meta!.key);
      expect(needle).toContain(task.answer);
    }
  });
});
