import { access, mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadCheckpoint, parseSafetensors, saveCheckpoint, serializeSafetensors, type Checkpoint } from '@fathom/model';
import { adamWStateFromTensors, adamWStateToTensors, type AdamWState } from '@fathom/tensor';
import { z } from 'zod';
import { TrainingError } from './errors';

/**
 * Everything besides weights and optimizer moments that a run needs to continue exactly: the step, where the data
 * sampler stands, the seed, a fingerprint of the data, and the resolved config it was started with. `extra` is
 * for loop-specific state (a GRPO loop's policy version, sampler seeds).
 */
export const TrainingStateSchema = z.strictObject({
  version: z.literal(1),
  /** Optimizer steps completed. */
  step: z.number().int().nonnegative(),
  seed: z.number().int(),
  data: z.strictObject({ epoch: z.number().int().nonnegative(), offset: z.number().int().nonnegative() }),
  dataFingerprint: z.string(),
  config: z.unknown(),
  extra: z.record(z.string(), z.unknown()).default({}),
});
export type TrainingState = z.output<typeof TrainingStateSchema>;

/** A checkpoint folder's full content. */
export interface TrainingCheckpoint {
  dir: string;
  model: Checkpoint;
  optimizer: AdamWState;
  state: TrainingState;
}

const STATE_FILE = 'training_state.json';
const OPTIMIZER_FILE = 'optimizer.safetensors';
const STEP_DIR = /^step-(\d+)$/;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * Checkpoint folders of one run under `<root>/checkpoints/step-NNNNNN/`: a Hugging Face–style model folder (F32,
 * so a resume is bit-exact) plus `optimizer.safetensors` (AdamW moments, step in the metadata) and
 * `training_state.json`. The state file is written last, by rename, so a folder without it (a crash mid-write)
 * is never taken for a checkpoint.
 */
export class CheckpointStore {
  constructor(readonly root: string) {}

  dirFor(step: number): string {
    return join(this.root, 'checkpoints', `step-${String(step).padStart(6, '0')}`);
  }

  async save(model: Checkpoint, optimizer: AdamWState, state: TrainingState): Promise<string> {
    const dir = this.dirFor(state.step);
    await mkdir(dir, { recursive: true });
    await saveCheckpoint(dir, model, 'F32');
    const tensors = Object.entries(adamWStateToTensors(optimizer)).map(([name, data]) => ({
      name,
      shape: [data.length],
      data,
    }));
    await writeFile(join(dir, OPTIMIZER_FILE), serializeSafetensors(tensors, 'F32', { step: String(optimizer.step) }));
    const tmp = join(dir, `${STATE_FILE}.tmp`);
    await writeFile(tmp, JSON.stringify(state, null, 2) + '\n');
    await rename(tmp, join(dir, STATE_FILE));
    return dir;
  }

  /** The complete checkpoint folder with the highest step, or null when there is none. */
  async latest(): Promise<string | null> {
    const parent = join(this.root, 'checkpoints');
    if (!(await exists(parent))) return null;
    const steps = (await readdir(parent))
      .map((name) => STEP_DIR.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => b - a);
    for (const step of steps) if (await exists(join(this.dirFor(step), STATE_FILE))) return this.dirFor(step);
    return null;
  }

  /** Reads a checkpoint folder written by `save`. */
  async load(dir: string): Promise<TrainingCheckpoint> {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(join(dir, STATE_FILE), 'utf8'));
    } catch (error) {
      throw new TrainingError('INVALID_CHECKPOINT', `${dir}: ${(error as Error).message}`);
    }
    const parsed = TrainingStateSchema.safeParse(raw);
    if (!parsed.success)
      throw new TrainingError('INVALID_CHECKPOINT', `${join(dir, STATE_FILE)}: ${z.prettifyError(parsed.error)}`);
    const file = parseSafetensors(await readFile(join(dir, OPTIMIZER_FILE)), OPTIMIZER_FILE);
    const step = Number(file.metadata.step);
    if (!Number.isInteger(step))
      throw new TrainingError('INVALID_CHECKPOINT', `${dir}/${OPTIMIZER_FILE} has no step metadata`);
    const optimizer = adamWStateFromTensors(
      Object.fromEntries([...file.tensors].map(([name, t]) => [name, t.data])),
      step,
    );
    return { dir, model: await loadCheckpoint(dir), optimizer, state: parsed.data };
  }
}
