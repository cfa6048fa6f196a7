import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepGroup } from '@fathom/contracts';

/** What one step sampled and scored, as stored for replay and inspection. */
export interface StoredStep {
  step: number;
  /** The learner's policy version when the step's update ran (before it). */
  learnerVersion: number;
  /** Indices into the tasks file of the step's prompts, in group order. */
  taskIndexes: number[];
  groups: StepGroup[];
}

/**
 * `<run>/rollouts/step-NNNNNN.jsonl`: a header line (step, learner version, task indexes) then one scored group
 * a line — the exact ids, masks, behaviour log-probs, statuses and rewards the update saw. A resumed run rewrites
 * the files of the steps it repeats, so the folder always matches metrics.jsonl.
 */
export class RolloutStore {
  constructor(readonly root: string) {}

  fileFor(step: number): string {
    return join(this.root, 'rollouts', `step-${String(step).padStart(6, '0')}.jsonl`);
  }

  async write(record: StoredStep): Promise<void> {
    await mkdir(join(this.root, 'rollouts'), { recursive: true });
    const { groups, ...header } = record;
    const lines = [header, ...groups].map((x) => JSON.stringify(x) + '\n');
    await writeFile(this.fileFor(record.step), lines.join(''));
  }

  /** The stored step, or null when the run has no file for it. */
  async read(step: number): Promise<StoredStep | null> {
    let text: string;
    try {
      text = await readFile(this.fileFor(step), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    const [header, ...groups] = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as unknown);
    return { ...(header as Omit<StoredStep, 'groups'>), groups: groups as StepGroup[] };
  }
}
