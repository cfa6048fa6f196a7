import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSftConfig, parseSftConfig } from './config';
import { TrainingError } from './errors';

const data = { format: 'conversations', conversations: 'c.jsonl' };

describe('SFT config', () => {
  it('fills defaults and applies --set overrides before validation', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sft-config-'));
    const file = join(dir, 'run.json');
    await writeFile(file, JSON.stringify({ data, optimizer: { warmupSteps: 3 } }));
    const config = await loadSftConfig(file, ['steps=7', 'optimizer.lr=0.01', 'out=x', 'data.conversations=d.jsonl']);
    expect(config).toMatchObject({
      steps: 7,
      out: 'x',
      optimizer: { lr: 0.01, warmupSteps: 3 },
      seqLen: 1024,
      data: { format: 'conversations', conversations: 'd.jsonl' },
    });
    expect(config.rolloutPromptStyle).toEqual({ system: 'full', previewChars: 160 });
    await expect(loadSftConfig(file, ['steps=0'])).rejects.toThrow(/steps/);
    await expect(loadSftConfig(file, ['optimizer.learningRate=1'])).rejects.toThrow(
      `${file}: override optimizer.learningRate: unknown key "learningRate" in optimizer; valid keys: beta1, beta2, lr, ` +
        'maxGradNorm, minLr, warmupSteps, weightDecay',
    );
  });

  it('fills the SFT optimizer defaults and a seed of 0, and bounds the seed to a non-negative int32', () => {
    const config = parseSftConfig({ data });
    expect(config.optimizer).toEqual({
      lr: 1e-3,
      warmupSteps: 50,
      minLr: 1e-4,
      weightDecay: 0.01,
      maxGradNorm: 1,
      beta1: 0.9,
      beta2: 0.95,
    });
    expect(config.seed).toBe(0);
    expect(parseSftConfig({ data, seed: 2 ** 31 - 1 }).seed).toBe(2 ** 31 - 1);
    expect(() => parseSftConfig({ data, seed: 2 ** 31 })).toThrow(/seed/);
    expect(() => parseSftConfig({ data, seed: -1 })).toThrow(/seed/);
  });

  it('rejects unknown keys at every level, naming them', () => {
    expect(() => parseSftConfig({ data, stepz: 3 })).toThrow(/stepz/);
    expect(() => parseSftConfig({ data, optimizer: { learningRate: 1 } })).toThrow(/learningRate/);
    expect(() => parseSftConfig({ data: { ...data, extra: 1 } })).toThrow(/extra/);
  });

  it('rejects inconsistent values', () => {
    expect(() => parseSftConfig({ data, model: { checkpoint: 'a', config: 'b' } })).toThrow(/not both/);
    expect(() => parseSftConfig({ data, optimizer: { lr: 1e-4, minLr: 1e-3 } })).toThrow(/minLr/);
  });

  it('refuses a file that is not JSON or not an object, naming the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sft-config-'));
    await writeFile(join(dir, 'list.json'), '[1]');
    await writeFile(join(dir, 'broken.json'), '{"steps": ');
    await expect(loadSftConfig(join(dir, 'list.json'))).rejects.toThrow(/list\.json: the config must be a JSON object/);
    await expect(loadSftConfig(join(dir, 'broken.json'))).rejects.toThrow(TrainingError);
    await expect(loadSftConfig(join(dir, 'missing.json'))).rejects.toThrow(/missing\.json: ENOENT/);
  });
});
