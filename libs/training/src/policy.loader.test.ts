import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RunConfigSchema } from '@fathom/contracts';
import { createDefaultModel, saveCheckpoint } from '@fathom/model';
import { afterAll, describe, expect, it } from 'vitest';
import { grpoTrainConfigOfRun } from './grpo/run.config';
import { loadPolicy, PAIRED_READER_DIR } from './policy.loader';

const shipped = fileURLToPath(new URL('../../../data/checkpoints/default', import.meta.url));
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'fathom-pair-'));
  dirs.push(dir);
  return dir;
}

describe('a checkpoint with a paired reader', () => {
  it('loads as one policy whose leaf reads go to the span head of <dir>/reader', async () => {
    const loaded = await loadPolicy(shipped);
    try {
      expect(loaded.policy.readSpan).toBeDefined();
      const chunk = 'The code of the murenur bator is K9-BKG. The code of the murenur fogor is QJ5-QHW.';
      const read = await loaded.policy.readSpan!({
        question: 'What is the code of the murenur fogor?',
        chunk,
        temperature: 0,
        seed: 0,
      });
      expect(read.text).toBe('QJ5-QHW');
      expect(read.answered).toBe(true);
      expect(read.logprob).toBeLessThanOrEqual(0);
    } finally {
      await loaded.release();
    }
  });

  it('reads by generation without one, and refuses a reader folder without a span head', async () => {
    const root = await tempDir();
    await cp(shipped, root, { recursive: true, filter: (src) => !src.includes(`/${PAIRED_READER_DIR}`) });
    const plain = await loadPolicy(root);
    expect(plain.policy.readSpan).toBeUndefined();
    await plain.release();
    await saveCheckpoint(join(root, PAIRED_READER_DIR), await createDefaultModel(), 'F32');
    await expect(loadPolicy(root)).rejects.toThrow(/is not a reader: its config has no span head/);
  });

  it('is read by a run of it as its frozen reader, unless the run names another or trains the reader', async () => {
    const run = (model: Record<string, unknown>) =>
      grpoTrainConfigOfRun(
        RunConfigSchema.parse({ name: 'r', model, rollout: { trainSubcalls: 'rootCheckpoint' in model } }),
        '/tmp/out',
      );
    expect((await run({ checkpoint: 'default' })).model.readerCheckpoint).toBe(join(shipped, PAIRED_READER_DIR));
    const other = await tempDir();
    await saveCheckpoint(other, await createDefaultModel(), 'F32');
    expect((await run({ checkpoint: 'default', readerCheckpoint: other })).model.readerCheckpoint).toBe(other);
    const frozenRoot = await run({ checkpoint: other, rootCheckpoint: shipped });
    expect(frozenRoot.model.readerCheckpoint).toBeUndefined();
  });
});
