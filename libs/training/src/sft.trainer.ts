import { writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  createDefaultModel,
  DEFAULT_CONFIG_PATH,
  loadCheckpoint,
  ModelGraphs,
  saveCheckpoint,
  type Checkpoint,
  type Tokenizer,
} from '@fathom/model';
import { CheckpointStore, type TrainingState } from './checkpoint.store';
import type { SftConfig } from './config';
import { readSftConversations, type Conversation } from './data.source';
import { dataFingerprint, splitHeldOut, tokenizeConversations, type TokenizeReport } from './dataset';
import { TrainingError } from './errors';
import { evaluateLoss } from './evaluate';
import { MetricsLog } from './metrics.log';
import { createAdamW } from './optimizer';
import { EpochSampler } from './sampler';
import { packBatch, sftTokenWeights, type PackOptions } from './tokens';
import { writePromptStyle } from './prompt-style.file';

/** One optimizer step, as written to metrics.jsonl. */
export interface SftStepRecord {
  kind: 'train';
  step: number;
  /** The epoch the step's last example came from (0-based). */
  epoch: number;
  /** Mean negative log-likelihood per trained token of the batch, before the update. */
  loss: number;
  /** Learning rate of this update. */
  lr: number;
  /** Global gradient norm before clipping. */
  grad_norm: number;
  /** Input positions holding real tokens (padding excluded). */
  tokens: number;
  /** Positions the loss is taken on (the model's own tokens). */
  trained_tokens: number;
  /** B × T of the padded batch: compare with `tokens` for the padding overhead. */
  padded_tokens: number;
  /** Real tokens per second of wall time of the step (forward, backward and update). */
  tokens_per_s: number;
  step_ms: number;
}

/** A held-out evaluation, as written to metrics.jsonl. */
export interface SftEvalRecord {
  kind: 'eval';
  step: number;
  eval_loss: number;
  eval_tokens: number;
  eval_examples: number;
}

/** What data.json holds: how the conversations became training and held-out examples. */
export interface SftDataReport extends TokenizeReport {
  seqLen: number;
  train: { examples: number; tasks: number; subcalls: number; trainedTokens: number };
  heldOut: { examples: number; tasks: number; trainedTokens: number };
  fingerprint: string;
}

/** Hooks for a progress display; every one is optional. */
export interface SftObserver {
  onStart?(info: { startStep: number; steps: number; data: SftDataReport; resumedFrom: string | null }): void;
  onStep?(record: SftStepRecord): void;
  onEval?(record: SftEvalRecord): void;
  onCheckpoint?(dir: string, step: number): void;
}

export interface SftRunOptions {
  /** Continue from the latest complete checkpoint under `config.out` (its config and data must match). */
  resume?: boolean;
  observer?: SftObserver;
  /** Milliseconds, for step timings (default `performance.now`). */
  clock?: () => number;
}

export interface SftRunResult {
  /** The exported model folder (`<out>/final`). */
  finalDir: string;
  /** The checkpoint folder of the last step. */
  checkpointDir: string;
  /** The step the exported model is at (`config.steps`). */
  step: number;
  data: SftDataReport;
  /** The last step and eval records this call wrote (null when a resumed run had nothing left to do). */
  last: SftStepRecord | null;
  lastEval: SftEvalRecord | null;
}

function padIdOf(tokenizer: Tokenizer): number {
  return tokenizer.tokenId('<|pad|>') ?? tokenizer.tokenId('<|endoftext|>') ?? 0;
}

async function initialModel(config: SftConfig): Promise<Checkpoint> {
  return config.model.checkpoint
    ? loadCheckpoint(config.model.checkpoint)
    : createDefaultModel(config.model.config ?? DEFAULT_CONFIG_PATH, config.model.initSeed);
}

function differingKeys(a: unknown, b: unknown): string[] {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(
    (k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]),
  );
}

function countTasks(examples: readonly { taskId: string }[]): number {
  return new Set(examples.map((e) => e.taskId)).size;
}

function sumTrained(examples: readonly { mask: readonly number[] }[]): number {
  return examples.reduce((n, e) => n + e.mask.reduce((a, b) => a + b, 0), 0);
}

/**
 * `fathom sft`: full fine-tuning of a model on SFT conversations, loss on the model's own tokens only.
 *
 * Order of work: read and render the data (the prompt preflight runs here, before any model is built), load or
 * create the model, tokenise (dropping and counting conversations over `seqLen`), hold out `evalFraction` of the
 * tasks, then `steps` AdamW updates on batches of `batchSize` conversations drawn by a seeded per-epoch shuffle.
 * Every step appends a record to `<out>/metrics.jsonl`; every `evalEvery` steps and after the last an eval record;
 * every `checkpointEvery` steps and after the last a checkpoint folder; at the end `<out>/final`.
 *
 * Guarantee: a run resumed from a checkpoint of step k writes the same records for steps k+1… as an uninterrupted
 * run with the same config (timings aside): weights and optimizer moments are restored bit-exactly, and the data
 * order depends only on (seed, epoch) and the stored position.
 */
export async function runSft(config: SftConfig, options: SftRunOptions = {}): Promise<SftRunResult> {
  const clock = options.clock ?? (() => performance.now());
  const conversations: Conversation[] = await readSftConversations(config);
  const store = new CheckpointStore(config.out);

  const resumeDir = options.resume ? await store.latest() : null;
  if (options.resume && resumeDir === null)
    throw new TrainingError('RESUME_MISMATCH', `no complete checkpoint under ${config.out}/checkpoints`, {
      trainer: 'SFT',
    });
  if (!options.resume) {
    const existing = await store.latest();
    if (existing !== null)
      throw new TrainingError(
        'RUN_EXISTS',
        `${existing} exists; continue it with --resume or choose another out folder`,
        { trainer: 'SFT' },
      );
  }
  const resumed = resumeDir === null ? null : await store.load(resumeDir);
  if (resumed) {
    const changed = differingKeys(resumed.state.config, config);
    if (changed.length > 0)
      throw new TrainingError(
        'RESUME_MISMATCH',
        `${resumeDir} was written with a different config (${changed.join(', ')} differ)`,
        { trainer: 'SFT' },
      );
  }
  const model = resumed ? resumed.model : await initialModel(config);
  const tokenizer = model.tokenizer;
  if (!tokenizer) throw new TrainingError('INVALID_CONFIG', 'the model has no tokenizer', { trainer: 'SFT' });
  if (config.seqLen - 1 > model.config.maxPositions)
    throw new TrainingError(
      'INVALID_CONFIG',
      `seqLen ${config.seqLen} needs ${config.seqLen - 1} positions, the model has max_position_embeddings ${model.config.maxPositions}`,
      { trainer: 'SFT' },
    );

  const { examples, report } = tokenizeConversations(conversations, tokenizer, config.seqLen, {
    extractive: config.data.format === 'teacher' && config.data.extractiveReads,
  });
  const { train, heldOut } = splitHeldOut(examples, config.evalFraction, config.seed);
  if (train.length === 0)
    throw new TrainingError(
      'NO_DATA',
      `${report.conversations} conversations, ${report.droppedTooLong} over seqLen ${config.seqLen}, ` +
        `${report.droppedNoTrainedTokens} without trained tokens`,
      { trainer: 'SFT' },
    );
  const data: SftDataReport = {
    ...report,
    seqLen: config.seqLen,
    train: {
      examples: train.length,
      tasks: countTasks(train),
      subcalls: train.filter((e) => e.kind === 'subcall').length,
      trainedTokens: sumTrained(train),
    },
    heldOut: { examples: heldOut.length, tasks: countTasks(heldOut), trainedTokens: sumTrained(heldOut) },
    fingerprint: dataFingerprint([...train, ...heldOut]),
  };
  if (resumed && resumed.state.dataFingerprint !== data.fingerprint)
    throw new TrainingError(
      'RESUME_MISMATCH',
      `${resumeDir} was trained on different data (fingerprint ${resumed.state.dataFingerprint.slice(0, 12)}…, ` +
        `now ${data.fingerprint.slice(0, 12)}…)`,
      { trainer: 'SFT' },
    );
  await mkdir(config.out, { recursive: true });
  await writeFile(join(config.out, 'data.json'), JSON.stringify(data, null, 2) + '\n');

  // One session for every padded length, as the GRPO learner compiles (createLearner): a session per length keeps
  // an onnxruntime arena per length, train and eval each, which took a 16 × 896 reader run past 24 GB.
  const graphs = new ModelGraphs(model.config, { kind: 'full' }, { specializeShapes: false });
  const optimizer = createAdamW(model.params, graphs.trainableSpecs, config.optimizer, config.steps);
  if (resumed) {
    if (resumed.optimizer.step !== resumed.state.step)
      throw new TrainingError(
        'INVALID_CHECKPOINT',
        `${resumeDir}: optimizer step ${resumed.optimizer.step}, training state step ${resumed.state.step}`,
        { trainer: 'SFT' },
      );
    optimizer.loadState(resumed.optimizer);
  }
  const startStep = resumed?.state.step ?? 0;
  const sampler = new EpochSampler(
    train.length,
    config.seed,
    resumed?.state.data,
    config.bucketWindow > 0
      ? { batchSize: config.batchSize, lengths: train.map((e) => e.ids.length), window: config.bucketWindow }
      : undefined,
  );
  const metrics = resumed
    ? await MetricsLog.resume(join(config.out, 'metrics.jsonl'), startStep)
    : await MetricsLog.create(join(config.out, 'metrics.jsonl'));
  const pack: PackOptions = {
    padId: padIdOf(tokenizer),
    padMultiple: config.padMultiple,
    maxLength: config.seqLen - 1,
    vocabSize: model.config.vocabSize,
  };
  options.observer?.onStart?.({ startStep, steps: config.steps, data, resumedFrom: resumeDir });

  let last: SftStepRecord | null = null;
  let lastEval: SftEvalRecord | null = null;
  let checkpointDir = resumeDir ?? '';
  try {
    for (let step = startStep + 1; step <= config.steps; step++) {
      const packed = packBatch(
        sampler.next(config.batchSize).map((i) => train[i]),
        pack,
      );
      const started = clock();
      const result = await graphs.trainStep(model.params, packed.batch, sftTokenWeights(packed));
      if (!Number.isFinite(result.loss))
        throw new TrainingError('DIVERGED', `step ${step}: loss ${result.loss}`, { trainer: 'SFT', step });
      const info = optimizer.update(Object.fromEntries(result.grads));
      if (!Number.isFinite(info.gradNorm))
        throw new TrainingError('DIVERGED', `step ${step}: gradient norm ${info.gradNorm}`, { trainer: 'SFT', step });
      const stepMs = clock() - started;
      last = {
        kind: 'train',
        step,
        epoch: sampler.position.offset === 0 ? sampler.position.epoch - 1 : sampler.position.epoch,
        loss: result.loss,
        lr: info.lr,
        grad_norm: info.gradNorm,
        tokens: packed.tokens,
        trained_tokens: packed.trainedTokens,
        padded_tokens: packed.batch.batch * packed.batch.length,
        tokens_per_s: stepMs > 0 ? packed.tokens / (stepMs / 1000) : 0,
        step_ms: stepMs,
      };
      await metrics.write(last);
      options.observer?.onStep?.(last);

      const final = step === config.steps;
      if (heldOut.length > 0 && (final || (config.evalEvery > 0 && step % config.evalEvery === 0))) {
        const e = await evaluateLoss(graphs, model.params, heldOut, config.batchSize, pack);
        lastEval = { kind: 'eval', step, eval_loss: e.loss, eval_tokens: e.tokens, eval_examples: e.examples };
        await metrics.write(lastEval);
        options.observer?.onEval?.(lastEval);
      }
      if (final || step % config.checkpointEvery === 0) {
        const state: TrainingState = {
          version: 1,
          step,
          seed: config.seed,
          data: sampler.position,
          dataFingerprint: data.fingerprint,
          config,
          extra: {},
        };
        checkpointDir = await store.save(model, optimizer.state(), state);
        options.observer?.onCheckpoint?.(checkpointDir, step);
      }
    }
  } finally {
    await graphs.release();
  }
  const finalDir = join(config.out, 'final');
  await saveCheckpoint(finalDir, model, config.exportDtype);
  await writePromptStyle(finalDir, config.rolloutPromptStyle);
  return { finalDir, checkpointDir, step: config.steps, data, last, lastEval };
}
