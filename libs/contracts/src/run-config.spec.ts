import { describe, expect, it } from 'vitest';
import { MAX_STALENESS } from './grpo';
import { RUN_LIMITS, RunConfigSchema } from './run-config';
import { isInvalidTextIssue } from './text';

describe('RunConfigSchema', () => {
  it('fills every default from a name alone', () => {
    const config = RunConfigSchema.parse({ name: 'demo' });
    expect(config).toMatchObject({
      name: 'demo',
      seed: 0,
      model: { checkpoint: 'default' },
      data: { split: 'train', trainSize: 1000 },
      steps: 20,
      batchSize: 4,
      checkpointEvery: 10,
      rollout: { maxTurns: 6, maxDepth: 2, temperature: 1 },
    });
    expect(config.grpo).toMatchObject({ groupSize: 8, maxStaleness: 0, beta: 0.04 });
    expect(config.reward.weights).toEqual({ correctness: 0.7, token_budget: 0.15, recursion_efficiency: 0.15 });
  });

  it('rejects unknown keys at the top and inside sections', () => {
    const top = RunConfigSchema.safeParse({ name: 'x', lr: 1 });
    expect(top.success).toBe(false);
    expect(top.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', keys: ['lr'] });
    const inner = RunConfigSchema.safeParse({ name: 'x', rollout: { G: 8 } });
    expect(inner.error?.issues[0]).toMatchObject({ code: 'unrecognized_keys', path: ['rollout'], keys: ['G'] });
    expect(RunConfigSchema.safeParse({ name: 'x', grpo: { groupSize: 1 } }).success).toBe(false);
  });

  it('rejects wrong types, empty names and inverted context bounds', () => {
    expect(RunConfigSchema.safeParse({ name: '' }).success).toBe(false);
    expect(RunConfigSchema.safeParse({ name: 'x', steps: '10' }).success).toBe(false);
    const bounds = RunConfigSchema.safeParse({ name: 'x', data: { minContextTokens: 9000, maxContextTokens: 8000 } });
    expect(bounds.error?.issues[0].path).toEqual(['data', 'minContextTokens']);
    const weights = RunConfigSchema.safeParse({ name: 'x', reward: { weights: { correctness: 0.9 } } });
    expect(weights.error?.issues[0].message).toMatch(/must sum to 1/);
  });

  it.each([
    // The reproductions of issue 52: each was accepted, the first failing a second later in the task generator.
    [
      'generated documents shorter than the generator writes',
      { data: { minContextTokens: 100 } },
      'data.minContextTokens',
    ],
    ['a billion-token document', { data: { maxContextTokens: 1e9 } }, 'data.maxContextTokens'],
    ['groups a billion versions stale', { grpo: { maxStaleness: 1e9 } }, 'grpo.maxStaleness'],
    ['64 turns of 32,768 tokens', { rollout: { maxTurns: 64, maxTokensPerTurn: 32_768 } }, 'rollout.maxTokensPerTurn'],
    ['a million-token episode', { rollout: { maxEpisodeTokens: 1_000_000 } }, 'rollout.maxEpisodeTokens'],
    ['65 turns', { rollout: { maxTurns: 65 } }, 'rollout.maxTurns'],
    [
      'a Dr. GRPO normaliser past the longest episode',
      { grpo: { maxCompletionTokens: 1e9 } },
      'grpo.maxCompletionTokens',
    ],
    ['more warm-up steps than a run may have', { optimizer: { warmupSteps: 1e9 } }, 'optimizer.warmupSteps'],
  ])('refuses %s, naming the field', (_label, config, field) => {
    const parsed = RunConfigSchema.safeParse({ name: 'x', ...config });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(field);
  });

  it('accepts each bound itself', () => {
    const config = RunConfigSchema.parse({
      name: 'x',
      data: { minContextTokens: RUN_LIMITS.minContextTokens, maxContextTokens: RUN_LIMITS.maxContextTokens },
      grpo: { maxStaleness: MAX_STALENESS, maxCompletionTokens: RUN_LIMITS.maxEpisodeTokens },
      rollout: {
        maxTurns: RUN_LIMITS.maxTurns,
        maxTokensPerTurn: RUN_LIMITS.maxEpisodeTokens,
        maxEpisodeTokens: RUN_LIMITS.maxEpisodeTokens,
      },
    });
    expect(config.data).toMatchObject({ minContextTokens: 512, maxContextTokens: 1_000_000 });
    expect(config.rollout).toMatchObject({ maxTurns: 64, maxTokensPerTurn: 131_072, maxEpisodeTokens: 131_072 });
  });

  it('accepts only temperature 1 (GRPO scores tokens at 1) and no minOkSamples above the group size', () => {
    const hot = RunConfigSchema.safeParse({ name: 'x', rollout: { temperature: 0.7 } });
    expect(hot.error?.issues[0]).toMatchObject({ path: ['rollout', 'temperature'] });
    expect(hot.error?.issues[0].message).toMatch(/temperature 1/);
    const few = RunConfigSchema.safeParse({ name: 'x', grpo: { groupSize: 4 }, learner: { minOkSamples: 5 } });
    expect(few.error?.issues[0]).toMatchObject({ path: ['learner', 'minOkSamples'] });
    const lr = RunConfigSchema.safeParse({ name: 'x', optimizer: { lr: 1e-4, minLr: 1e-3 } });
    expect(lr.error?.issues[0].path).toEqual(['optimizer', 'minLr']);
  });

  it('accepts extractive reads with training on sub-call tokens (the learner scores them under the constraint)', () => {
    const both = RunConfigSchema.parse({ name: 'x', rollout: { extractiveReads: true, trainSubcalls: true } });
    expect(both.rollout).toMatchObject({ extractiveReads: true, trainSubcalls: true });
    expect(RunConfigSchema.parse({ name: 'x', rollout: { trainSubcalls: true } }).rollout.extractiveReads).toBe(false);
  });

  it('refuses a frozen root checkpoint without trainSubcalls or together with a frozen reader', () => {
    const root = { rootCheckpoint: 'data/checkpoints/search-grpo' };
    const alone = RunConfigSchema.safeParse({ name: 'x', model: root });
    expect(alone.error?.issues[0]).toMatchObject({ path: ['model', 'rootCheckpoint'] });
    expect(alone.error?.issues[0].message).toMatch(/trainSubcalls/);
    const both = RunConfigSchema.safeParse({
      name: 'x',
      model: { ...root, readerCheckpoint: 'data/checkpoints/reader' },
      rollout: { trainSubcalls: true },
    });
    expect(both.error?.issues[0].message).toMatch(/one of the two roles/);
    const ok = RunConfigSchema.parse({
      name: 'x',
      model: root,
      rollout: { trainSubcalls: true, extractiveReads: true },
    });
    expect(ok.model.rootCheckpoint).toBe(root.rootCheckpoint);
  });

  it('refuses a leaf temperature together with training on sub-call tokens', () => {
    const both = RunConfigSchema.safeParse({ name: 'x', rollout: { leafTemperature: 0, trainSubcalls: true } });
    expect(both.error?.issues[0]).toMatchObject({ path: ['rollout', 'leafTemperature'] });
    expect(RunConfigSchema.parse({ name: 'x', rollout: { leafTemperature: 0 } }).rollout.leafTemperature).toBe(0);
  });

  it('lets a frozen root write greedily while the trained leaf reads sample at temperature 1, and only then', () => {
    const model = { rootCheckpoint: 'data/checkpoints/search-grpo' };
    const rollout = { trainSubcalls: true, extractiveReads: true, temperature: 0, leafTemperature: 1 };
    expect(RunConfigSchema.parse({ name: 'x', model, rollout }).rollout).toMatchObject({ temperature: 0 });
    const greedyReads = RunConfigSchema.safeParse({ name: 'x', model, rollout: { ...rollout, leafTemperature: 0 } });
    expect(greedyReads.error?.issues[0]).toMatchObject({ path: ['rollout', 'leafTemperature'] });
    expect(greedyReads.error?.issues[0].message).toMatch(/temperature 1.*got 0 for the leaf reads/);
    const { leafTemperature: _, ...inherited } = rollout;
    const greedyByDefault = RunConfigSchema.safeParse({ name: 'x', model, rollout: inherited });
    expect(greedyByDefault.error?.issues[0]).toMatchObject({ path: ['rollout', 'leafTemperature'] });
    const greedyRoot = RunConfigSchema.safeParse({ name: 'x', rollout: { temperature: 0 } });
    expect(greedyRoot.error?.issues[0]).toMatchObject({ path: ['rollout', 'temperature'] });
  });

  it('refuses a frozen reader checkpoint together with training on sub-call tokens', () => {
    const both = RunConfigSchema.safeParse({
      name: 'x',
      model: { readerCheckpoint: 'data/checkpoints/reader' },
      rollout: { trainSubcalls: true },
    });
    expect(both.error?.issues[0]).toMatchObject({ path: ['model', 'readerCheckpoint'] });
    expect(both.error?.issues[0].message).toMatch(/trainSubcalls/);
    const reader = RunConfigSchema.parse({ name: 'x', model: { readerCheckpoint: 'data/checkpoints/reader' } });
    expect(reader.model).toEqual({ checkpoint: 'default', readerCheckpoint: 'data/checkpoints/reader' });
  });
});

describe('RunConfigSchema bounds and text', () => {
  it('bounds the episodes of one step (batchSize × grpo.groupSize) and the step count, naming the field', () => {
    expect(RunConfigSchema.safeParse({ name: 'x', batchSize: 128, grpo: { groupSize: 8 } }).success).toBe(true);
    const huge = RunConfigSchema.safeParse({ name: 'x', batchSize: 4096, grpo: { groupSize: 4096 } });
    expect(huge.error?.issues.map((i) => i.path)).toContainEqual(['batchSize']);
    const product = RunConfigSchema.safeParse({ name: 'x', batchSize: 256, grpo: { groupSize: 8 } });
    expect(product.error?.issues).toEqual([
      expect.objectContaining({
        path: ['batchSize'],
        message: `batchSize × grpo.groupSize = 256 × 8 = 2048 episodes per step; at most ${RUN_LIMITS.maxEpisodesPerStep}`,
      }),
    ]);
    const long = RunConfigSchema.safeParse({ name: 'x', steps: RUN_LIMITS.maxSteps + 1 });
    expect(long.error?.issues[0].path).toEqual(['steps']);
  });

  it('refuses a NUL or a lone surrogate in the name and paths as invalid text', () => {
    for (const [input, path] of [
      [{ name: 'a\u0000b' }, ['name']],
      [{ name: 'a\uD800' }, ['name']],
      [{ name: 'x', model: { checkpoint: '/ck/\u0000' } }, ['model', 'checkpoint']],
      [{ name: 'x', data: { trainFile: '\uDC00.jsonl' } }, ['data', 'trainFile']],
    ] as const) {
      const issues = RunConfigSchema.safeParse(input).error?.issues ?? [];
      expect(issues.map((i) => [i.path, isInvalidTextIssue(i)])).toEqual([[path, true]]);
    }
    expect(RunConfigSchema.parse({ name: '  ✓ 日本語 🚀  ' }).name).toBe('✓ 日本語 🚀');
  });
});
