import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { GrpoTrainErrorCode } from './errors';
import { applyGrpoOverrides, loadGrpoTrainConfig, parseGrpoTrainConfig } from './config';

const shipped = fileURLToPath(new URL('../../../../configs/grpo/default.json', import.meta.url));
const minimal = { model: { checkpoint: 'ckpt' }, data: { tasks: 'tasks.jsonl' } };

describe('GRPO train config', () => {
  it('loads the shipped config, with command-line overrides validated like file values', async () => {
    const config = await loadGrpoTrainConfig(shipped, { steps: 7, groupSize: 4, lr: 2e-5, out: 'x' });
    expect(config).toMatchObject({ steps: 7, out: 'x', grpo: { groupSize: 4, beta: 0.04 }, optimizer: { lr: 2e-5 } });
    await expect(loadGrpoTrainConfig(shipped, { groupSize: 1 })).rejects.toMatchObject({
      code: GrpoTrainErrorCode.INVALID_CONFIG,
      message: expect.stringContaining('groupSize'),
    });
  });

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

  it('refuses sampling the learner cannot reproduce the log-probs of, and minOkSamples above G', () => {
    expect(() => parseGrpoTrainConfig({ ...minimal, episode: { sampling: { temperature: 0.7 } } })).toThrow(
      /temperature 1/,
    );
    expect(() => parseGrpoTrainConfig({ ...minimal, grpo: { groupSize: 2 }, minOkSamples: 3 })).toThrow(
      /minOkSamples 3 exceeds/,
    );
  });

  it('overrides only the keys given, keeping sibling values', () => {
    const raw = { ...minimal, optimizer: { lr: 1, warmupSteps: 3 } };
    expect(applyGrpoOverrides(raw, { lr: 0.5, checkpoint: 'other' })).toMatchObject({
      optimizer: { lr: 0.5, warmupSteps: 3 },
      model: { checkpoint: 'other' },
      data: { tasks: 'tasks.jsonl' },
    });
  });
});
