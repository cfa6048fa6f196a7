import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { selectStepGroups, type StepSelection } from '@fathom/grpo';
import { loadCheckpoint } from '@fathom/model';
import { CheckpointStore } from '../checkpoint.store';
import { MetricsLog } from '../metrics.log';
import { parseRunFolderConfig } from './config';
import { TrainingError } from '../errors';
import { createLearner, learnerOptions } from './grpo.trainer';
import { applyUpdate, type UpdateMetrics } from './learner';
import { RolloutStore } from './rollout.store';

/** The fields of a step record that the update determines, and that a replay must reproduce. */
export const REPLAYED_FIELDS = [
  'loss',
  'policy_loss',
  'kl',
  'clip_ratio',
  'clip_ratio/low_mean',
  'clip_ratio/high_mean',
  'entropy',
  'grad_norm',
  'learning_rate',
  'logprob_diff_mean',
  'logprob_diff_max',
  'trained_sequences',
  'trained_tokens',
  'frac_reward_zero_std',
] as const;

export interface ReplayResult {
  step: number;
  /** The checkpoint the replay started from (null: the run's initial model). */
  fromCheckpoint: string | null;
  /** Steps whose stored updates were re-applied to reach the weights before `step`. */
  replayedSteps: number[];
  selection: Omit<StepSelection, 'trainable'> & { trainable: string[] };
  update: UpdateMetrics | null;
  /** The same fields from metrics.jsonl and from the replay; `maxAbsDiff` over the numeric ones. */
  recorded: Record<string, unknown> | null;
  replayed: Record<string, unknown>;
  maxAbsDiff: number;
}

async function checkpointSteps(runDir: string): Promise<number[]> {
  try {
    return (await readdir(join(runDir, 'checkpoints')))
      .map((n) => /^step-(\d+)$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
  } catch {
    return [];
  }
}

function pick(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(REPLAYED_FIELDS.filter((k) => k in record).map((k) => [k, record[k]]));
}

/**
 * `fathom train replay`: re-runs the update of step N of a finished (or interrupted) run from its stored
 * trajectories — no sampling, no sandbox. The weights before step N are rebuilt from the latest checkpoint before
 * N (or the initial model) by re-applying the stored updates in between, which are deterministic. Returns the
 * replayed metrics next to the recorded ones.
 */
export async function replayStep(runDir: string, step: number): Promise<ReplayResult> {
  const config = parseRunFolderConfig(JSON.parse(await readFile(join(runDir, 'config.json'), 'utf8')));
  const rollouts = new RolloutStore(runDir);
  const store = new CheckpointStore(runDir);
  const base = (await checkpointSteps(runDir)).filter((s) => s < step).sort((a, b) => b - a)[0];
  const initial = await loadCheckpoint(config.model.checkpoint);
  const resumed = base === undefined ? null : await store.load(store.dirFor(base));
  const model = resumed ? { ...resumed.model, tokenizer: resumed.model.tokenizer ?? initial.tokenizer } : initial;
  if (model.tokenizer === null)
    throw new TrainingError('REPLAY_UNAVAILABLE', `${config.model.checkpoint} has no tokenizer`, { trainer: 'GRPO' });
  const learner = createLearner(config, model, initial);
  if (resumed) learner.optimizer.loadState(resumed.optimizer);
  const replayedSteps: number[] = [];
  try {
    for (let s = (base ?? 0) + 1; s <= step; s++) {
      const stored = await rollouts.read(s);
      if (stored === null)
        throw new TrainingError('REPLAY_UNAVAILABLE', `${rollouts.fileFor(s)} does not exist`, { trainer: 'GRPO' });
      const selection = selectStepGroups(stored.groups, stored.learnerVersion, config.grpo, config.minOkSamples);
      const update = await applyUpdate(learner, selection.trainable, learnerOptions(config), s);
      if (s < step) {
        replayedSteps.push(s);
        continue;
      }
      const records = await MetricsLog.read(join(runDir, 'metrics.jsonl'));
      const recordedLine = records.find((r) => r.kind === 'train' && r.step === step) ?? null;
      const replayed = pick({
        ...(update ?? {}),
        ...(update
          ? { 'clip_ratio/low_mean': update.clip_ratio_low, 'clip_ratio/high_mean': update.clip_ratio_high }
          : {}),
        frac_reward_zero_std: selection.fracRewardZeroStd,
      });
      const recorded = recordedLine === null ? null : pick(recordedLine);
      let maxAbsDiff = 0;
      for (const [k, v] of Object.entries(replayed))
        if (typeof v === 'number' && typeof recorded?.[k] === 'number')
          maxAbsDiff = Math.max(maxAbsDiff, Math.abs(v - (recorded[k] as number)));
      return {
        step,
        fromCheckpoint: resumed?.dir ?? null,
        replayedSteps,
        selection: { ...selection, trainable: selection.trainable.map((t) => t.group.groupId) },
        update,
        recorded,
        replayed,
        maxAbsDiff,
      };
    }
  } finally {
    await learner.graphs.release();
  }
  throw new TrainingError('REPLAY_UNAVAILABLE', `step ${step} must be a positive integer`, { trainer: 'GRPO' });
}
