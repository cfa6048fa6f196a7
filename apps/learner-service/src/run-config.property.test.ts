import { RUN_LIMITS, RunConfigSchema } from '@fathom/contracts';
import { resolveEpisodeConfig } from '@fathom/rlm';
import { resolveGenerateOptions } from '@fathom/tasks';
import { grpoTrainConfigOfRun } from '@fathom/training';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Property: a run config that POST /runs (and `fathom train --config`) accepts — `RunConfigSchema` — is never refused
 * later by what the learner does with it before its first step: the task generator's option checks (`runTasks`) and
 * the trainer's resolution (`grpoTrainConfigOfRun`, which ends in `parseGrpoTrainConfig`), nor by the episode engine's
 * (`resolveEpisodeConfig`, what the rollout workers run with). Before the bounds, `data.minContextTokens` 100 was
 * accepted and the run failed a second later ("min tokens must be an integer >= 512").
 */
const RUNS = 2000;

/** An integer often at or next to a bound of some run-config field, otherwise anywhere in a wide range. */
const EDGES = [
  0,
  1,
  2,
  3,
  8,
  100,
  511,
  512,
  513,
  4096,
  16_384,
  32_768,
  RUN_LIMITS.maxEpisodeTokens,
  RUN_LIMITS.maxEpisodeTokens + 1,
  RUN_LIMITS.maxContextTokens,
  RUN_LIMITS.maxContextTokens + 1,
  RUN_LIMITS.maxSteps,
  1e9,
  2 ** 31,
];
const count = fc.oneof(fc.constantFrom(...EDGES), fc.integer({ min: -1, max: 2_000_000 }));
const fraction = fc.oneof(fc.constantFrom(0, 0.5, 0.99, 1, 2), fc.double({ min: 0, max: 2, noNaN: true }));
/** Mostly absent (the schema's default), so that a config sets a few fields and often passes the schema. */
const often = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

const rawRunConfig = fc.record({
  name: fc.constant('property'),
  seed: maybe(fc.oneof(count, fc.constant(2 ** 31 - 1))),
  model: maybe(
    fc.constantFrom(
      { readerCheckpoint: 'data/checkpoints/default/reader' },
      { rootCheckpoint: 'data/checkpoints/default' },
    ),
  ),
  data: fc.record({
    split: maybe(fc.constantFrom('train', 'eval', 'heldout')),
    trainSize: maybe(count),
    // What the generator checks itself: set half the time.
    minContextTokens: often(count),
    maxContextTokens: often(count),
  }),
  grpo: fc.record({
    groupSize: maybe(fc.integer({ min: 1, max: 16 })),
    beta: maybe(fraction),
    epsilonLow: maybe(fraction),
    epsilonHigh: maybe(fraction),
    maxCompletionTokens: maybe(count),
    maxStaleness: maybe(count),
  }),
  optimizer: fc.record({
    lr: maybe(fraction),
    minLr: maybe(fraction),
    warmupSteps: maybe(count),
    weightDecay: maybe(fraction),
    maxGradNorm: maybe(fraction),
    beta1: maybe(fraction),
    beta2: maybe(fraction),
  }),
  rollout: fc.record({
    maxTurns: maybe(count),
    maxTokensPerTurn: maybe(count),
    maxEpisodeTokens: maybe(count),
    temperature: maybe(fc.constantFrom(0, 1)),
    maxDepth: maybe(fc.integer({ min: 0, max: 9 })),
    promptStyle: maybe(fc.record({ system: fc.constantFrom('full', 'compact'), previewChars: count })),
    maxInfraRetries: maybe(fc.integer({ min: -1, max: 11 })),
    trainSubcalls: maybe(fc.boolean()),
    extractiveReads: maybe(fc.boolean()),
    leafTemperature: maybe(fc.constantFrom(0, 1, 2)),
  }),
  learner: fc.record({
    microBatchSize: maybe(count),
    padMultiple: maybe(count),
    minOkSamples: maybe(fc.integer({ min: 0, max: 10 })),
  }),
  steps: maybe(count),
  batchSize: maybe(fc.integer({ min: 0, max: 300 })),
  checkpointEvery: maybe(count),
});

/** Drops the absent keys, as a JSON body would not have them. */
function json(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

describe('run configs', () => {
  it('that the schema accepts are accepted by the task generator, the trainer and the episode engine', async () => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(rawRunConfig, async (raw) => {
        const parsed = RunConfigSchema.safeParse(json(raw));
        if (!parsed.success) return;
        accepted++;
        const run = parsed.data;
        const { split, trainSize, minContextTokens, maxContextTokens } = run.data;
        resolveGenerateOptions({
          split,
          n: trainSize,
          seed: run.seed,
          minTokens: minContextTokens,
          maxTokens: maxContextTokens,
        });
        const config = await grpoTrainConfigOfRun(run, 'out/property');
        resolveEpisodeConfig(config.episode);
      }),
      { numRuns: RUNS, seed: 52 },
    );
    // Not vacuous: a good share of the drawn configs pass the schema and so reach the trainer.
    expect(accepted).toBeGreaterThan(RUNS / 40);
  });
});
