import { describe, expect, it } from 'vitest';
import { parseGrpoTrainConfig } from './config';

const minimal = { model: { checkpoint: 'ckpt' }, data: { tasks: 'tasks.jsonl' } };

describe('the resolved GRPO config', () => {
  it('fills defaults (G = 8) and rejects unknown keys at any level', () => {
    expect(parseGrpoTrainConfig(minimal)).toMatchObject({ grpo: { groupSize: 8 }, minOkSamples: 2, seed: 0 });
    expect(() => parseGrpoTrainConfig({ ...minimal, stpes: 3 })).toThrow(/stpes/);
    expect(() => parseGrpoTrainConfig({ ...minimal, episode: { maxTurn: 3 } })).toThrow(/maxTurn/);
  });

  it('fills the GRPO optimizer defaults, keeps the minLr check and bounds the seed', () => {
    expect(parseGrpoTrainConfig(minimal).optimizer).toEqual({
      lr: 1e-5,
      warmupSteps: 0,
      minLr: 1e-5,
      weightDecay: 0,
      maxGradNorm: 0.5,
      beta1: 0.9,
      beta2: 0.99,
    });
    expect(() => parseGrpoTrainConfig({ ...minimal, optimizer: { lr: 1e-6 } })).toThrow(/minLr/);
    expect(() => parseGrpoTrainConfig({ ...minimal, seed: 2 ** 31 })).toThrow(/seed/);
    expect(() => parseGrpoTrainConfig({ ...minimal, seed: 0.5 })).toThrow(/seed/);
  });
});
