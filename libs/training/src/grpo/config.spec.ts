import { RunConfigSchema } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { parseGrpoTrainConfig, parseRunFolderConfig } from './config';

const minimal = { model: { checkpoint: 'ckpt' }, data: { tasks: 'tasks.jsonl' } };

describe('the resolved GRPO config', () => {
  it('fills defaults (G = 8) and rejects unknown keys at any level', () => {
    expect(parseGrpoTrainConfig(minimal)).toMatchObject({ grpo: { groupSize: 8 }, minOkSamples: 2, seed: 0 });
    expect(() => parseGrpoTrainConfig({ ...minimal, stpes: 3 })).toThrow(/stpes/);
    expect(() => parseGrpoTrainConfig({ ...minimal, episode: { maxTurn: 3 } })).toThrow(/maxTurn/);
  });

  it('fills the GRPO optimizer defaults (no minLr: constant after warm-up), keeps the minLr check and bounds the seed', () => {
    expect(parseGrpoTrainConfig(minimal).optimizer).toEqual({
      lr: 1e-5,
      warmupSteps: 0,
      weightDecay: 0,
      maxGradNorm: 0.5,
      beta1: 0.9,
      beta2: 0.99,
    });
    expect(() => parseGrpoTrainConfig({ ...minimal, optimizer: { lr: 1e-6, minLr: 1e-5 } })).toThrow(/minLr/);
    expect(() => parseGrpoTrainConfig({ ...minimal, seed: 2 ** 31 })).toThrow(/seed/);
    expect(() => parseGrpoTrainConfig({ ...minimal, seed: 0.5 })).toThrow(/seed/);
  });

  it("takes the run config's defaults: one default for each setting both hold", () => {
    const run = RunConfigSchema.parse({ name: 'r' });
    const config = parseGrpoTrainConfig(minimal);
    expect(config).toMatchObject({ ...run.learner, steps: run.steps, batchSize: run.batchSize, seed: run.seed });
    expect(config.optimizer).toEqual(run.optimizer);
    const { maxTurns, maxTokensPerTurn, maxEpisodeTokens, maxInfraRetries, trainSubcalls } = run.rollout;
    expect(config.episode).toMatchObject({
      maxTurns,
      maxTokensPerTurn,
      maxEpisodeTokens,
      maxInfraRetries,
      trainSubcalls,
    });
  });

  it("reads a run folder's config.json, an older one's episode.maxTurnTokens as maxTokensPerTurn", () => {
    const current = { ...minimal, episode: { maxTurns: 3, maxTokensPerTurn: 48 } };
    expect(parseRunFolderConfig(current)).toEqual(parseGrpoTrainConfig(current));
    expect(parseRunFolderConfig({ ...minimal, episode: { maxTurns: 3, maxTurnTokens: 48 } })).toEqual(
      parseGrpoTrainConfig(current),
    );
    expect(() => parseRunFolderConfig({ ...minimal, episode: { maxTurnz: 3 } })).toThrow(/maxTurnz/);
  });
});
