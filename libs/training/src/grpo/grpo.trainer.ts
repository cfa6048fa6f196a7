import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StepGroup, Task } from '@fathom/contracts';
import { selectStepGroups } from '@fathom/grpo';
import {
  loadCheckpoint,
  ModelGraphs,
  saveCheckpoint,
  SpanReader,
  type Checkpoint,
  type DecodeBackend,
  type KvCacheDecoder,
  type ParamMap,
  type Tokenizer,
} from '@fathom/model';
import { EpisodeRunner, SamplerPolicy, type Policy } from '@fathom/rlm';
import type { RuntimeConfig } from '@fathom/tensor';
import { SandboxPool } from '@fathom/sandbox';
import { readTasksJsonl } from '@fathom/tasks';
import { CheckpointStore, type TrainingState } from '../checkpoint.store';
import { MetricsLog } from '../metrics.log';
import { createAdamW } from '../optimizer';
import { type DataPosition, EpochSampler } from '../sampler';
import { collectGroups, type CollectedStep } from './collect';
import type { GrpoTrainConfig } from './config';
import { TrainingError } from '../errors';
import { applyUpdate, type Learner, type LearnerOptions, type UpdateTimings } from './learner';
import { preflightGrpo, resolveSftPromptStyle } from './preflight';
import { RolloutStore } from './rollout.store';
import { stepRecord, type GrpoStepRecord } from './step.metrics';
import { writePromptStyle } from '../prompt-style.file';
import { loadPolicy } from '../policy.loader';

/**
 * Hooks for progress displays and services; every one is optional and may be async (the loop waits for it). A hook
 * that throws stops the run (tests interrupt so).
 */
export interface GrpoObserver {
  onStart?(info: { startStep: number; steps: number; tasks: number; resumedFrom: string | null }): void | Promise<void>;
  /**
   * A policy version became the one the next rollouts sample: at the start (the initial or resumed weights) and
   * after every update. `model.params` are the live weights: copy them to keep them.
   */
  onPolicy?(info: { version: number; step: number; model: Checkpoint }): void | Promise<void>;
  onStep?(record: GrpoStepRecord, groups: readonly StepGroup[]): void | Promise<void>;
  onCheckpoint?(dir: string, step: number): void | Promise<void>;
}

/** Builds the trained policy of a version: its decoder, and its span reader when the model has a span head. */
export type PolicyFactory = (
  backend: DecodeBackend,
  tokenizer: Tokenizer,
  version: number,
  reader?: SpanReader,
) => Policy;

/** What one step asks rollouts for: one group of G episodes per task, sampled with `policyVersion`. */
export interface StepCollectRequest {
  step: number;
  /** The tasks of the step, in group order, and their indexes in the run's task list. */
  tasks: readonly Task[];
  taskIndexes: readonly number[];
  policyVersion: number;
  /** The run's seed; group i samples with `groupSeed(seed, step, i)`. */
  seed: number;
  G: number;
}

/**
 * Thrown by a collector that gave up a step because the run is being stopped: `runGrpo` then ends the run as
 * `shouldStop` does before a step (checkpointed at the last completed step, `stopped` true), so a later `resume`
 * runs the abandoned step again.
 */
export class StepStoppedError extends Error {
  override name = 'StepStoppedError';
}

/**
 * Where a step's groups come from: rollouts in this process (the default, `InProcessCollector`) or the rollout and
 * reward services over the queues (the learner-service's collector). Either way the groups come back in task order,
 * scored.
 */
export interface StepCollector {
  collect(request: StepCollectRequest): Promise<CollectedStep & { weightSyncMs: number }>;
  close(): Promise<void>;
}

export interface GrpoRunOptions {
  /** Continue from the latest complete checkpoint under `config.out` (same config and tasks required). */
  resume?: boolean;
  /** The run's tasks; default: read from `config.data.tasks`. */
  tasks?: readonly Task[];
  /** Default: an `InProcessCollector` over `sandbox` and `policyFactory`. */
  collector?: StepCollector;
  /**
   * Asked before every step; true stops the run there, after a checkpoint of the last completed step, so a later
   * `resume` continues exactly (`stopped` is then true in the result).
   */
  shouldStop?: (nextStep: number) => boolean | Promise<boolean>;
  observer?: GrpoObserver;
  /** The sandbox to run episodes in; default: a `SandboxPool` of `config.sandbox.workers`, closed at the end. */
  sandbox?: Pick<SandboxPool, 'openEpisode'>;
  /** Default: `SamplerPolicy`. Tests pass doubles (a worker that reports the wrong weights' version). */
  policyFactory?: PolicyFactory;
  /** Milliseconds, for timings (default `performance.now`). */
  clock?: () => number;
  /** onnxruntime settings of the learner's graphs (the CUDA execution provider on GPU nodes). */
  runtime?: RuntimeConfig;
}

export interface GrpoRunResult {
  /** `<out>/final`; written only when the run completed (not when it stopped). */
  finalDir: string;
  /** True when `shouldStop` (or a collector's StepStoppedError) ended the run before its last step. */
  stopped: boolean;
  checkpointDir: string;
  last: GrpoStepRecord | null;
  policyVersion: number;
}

/** Loads the first `limit` tasks of a JSONL file. */
export async function loadGrpoTasks(config: Pick<GrpoTrainConfig, 'data'>): Promise<Task[]> {
  const tasks: Task[] = [];
  for await (const task of readTasksJsonl(config.data.tasks)) {
    if (config.data.limit !== undefined && tasks.length === config.data.limit) break;
    tasks.push(task);
  }
  if (tasks.length === 0) throw new TrainingError('NO_DATA', `${config.data.tasks} has no tasks`, { trainer: 'GRPO' });
  return tasks;
}

/** A fingerprint of the tasks a run samples from, so a resume on another file is refused. */
export function tasksFingerprint(tasks: readonly Task[]): string {
  const hash = createHash('sha256');
  for (const t of tasks) hash.update(`${t.id}\0${t.question}\0${t.answer}\0${t.context.length}\n`);
  return hash.digest('hex');
}

export function learnerOptions(config: GrpoTrainConfig): LearnerOptions {
  return {
    grpo: config.grpo,
    microBatchSize: config.microBatchSize,
    padMultiple: config.padMultiple,
    entropy: config.entropy,
  };
}

export function padIdOf(tokenizer: Tokenizer): number {
  return tokenizer.tokenId('<|pad|>') ?? tokenizer.tokenId('<|endoftext|>') ?? 0;
}

const copyParams = (params: ParamMap): ParamMap => new Map([...params].map(([k, v]) => [k, v.slice()]));

/**
 * The learner over `model` (updated in place) with the frozen reference `initial` and AdamW. Its graphs compile one
 * session for every sequence length unless `runtime` says otherwise: one session per padded length keeps one
 * onnxruntime memory arena per length, and over a run's 512–2,048-token buckets those held 6.3–7.1 GB where one
 * session holds 4.9–5.3 GB at the same update time (experiments/services/JOURNAL.md, issue 18).
 */
export function createLearner(
  config: GrpoTrainConfig,
  model: Checkpoint,
  initial: Checkpoint,
  runtime: RuntimeConfig = {},
): Learner {
  const graphs = new ModelGraphs(model.config, { kind: 'full' }, { specializeShapes: false, ...runtime });
  return {
    graphs,
    params: model.params,
    reference: config.grpo.beta > 0 ? copyParams(initial.params) : null,
    optimizer: createAdamW(model.params, graphs.trainableSpecs, config.optimizer, config.steps),
    padId: padIdOf(model.tokenizer!),
  };
}

function differingKeys(a: unknown, b: unknown): string[] {
  const x = (a ?? {}) as Record<string, unknown>;
  const y = (b ?? {}) as Record<string, unknown>;
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter(
    (k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]),
  );
}

/**
 * A frozen checkpoint's policy and the role it plays for the whole run: `reader` (`model.readerCheckpoint`) answers
 * leaf llm() reads while the trained policy writes the turns; `root` (`model.rootCheckpoint`) writes the turns while
 * the trained policy reads.
 */
export interface FrozenRole {
  role: 'reader' | 'root';
  policy: Policy;
}

/** The run's frozen checkpoint and its role, if it names one. */
export function frozenRoleOf(config: GrpoTrainConfig): { role: FrozenRole['role']; checkpoint: string } | null {
  const { readerCheckpoint, rootCheckpoint } = config.model;
  if (rootCheckpoint !== undefined) return { role: 'root', checkpoint: rootCheckpoint };
  if (readerCheckpoint !== undefined) return { role: 'reader', checkpoint: readerCheckpoint };
  return null;
}

/** The episode runner's policies: the trained one, and the frozen one in its role. */
export function rolePolicies(trained: Policy, frozen?: FrozenRole): { policy: Policy; readerPolicy?: Policy } {
  if (frozen?.role === 'root') return { policy: frozen.policy, readerPolicy: trained };
  return { policy: trained, readerPolicy: frozen?.policy };
}

/**
 * Samples each step's groups in this process: the policy decodes with the learner's live weights (rebuilt when the
 * version changes: the in-process weight sync), episodes run in `sandbox`, and `@fathom/rewards` scores them. A
 * `frozen` checkpoint plays its role (`FrozenRole`) and the trained policy the other.
 */
export class InProcessCollector implements StepCollector {
  private decoder: KvCacheDecoder | null = null;
  private decoderVersion = -1;
  /** The span head's reads at the decoder's version (a snapshot of the weights), when the model has one. */
  private reader: SpanReader | undefined;

  constructor(
    private readonly learner: Learner,
    private readonly tokenizer: Tokenizer,
    private readonly config: GrpoTrainConfig,
    private readonly sandbox: Pick<SandboxPool, 'openEpisode'>,
    private readonly makePolicy: PolicyFactory,
    private readonly clock: () => number,
    private readonly frozen?: FrozenRole,
  ) {}

  async collect(request: StepCollectRequest): Promise<CollectedStep & { weightSyncMs: number }> {
    let weightSyncMs = 0;
    if (this.decoder === null || this.decoderVersion !== request.policyVersion) {
      const syncStarted = this.clock();
      const previous = this.decoder;
      // Before any await: with overlapped steps the update starts as soon as this call yields, and the decoder
      // must hold the weights as they are now.
      this.decoder = this.learner.graphs.decoder(this.learner.params);
      if (this.learner.graphs.config.reader?.spanHead)
        this.reader = new SpanReader(this.learner.graphs, copyParams(this.learner.params), this.tokenizer);
      this.decoderVersion = request.policyVersion;
      await previous?.release();
      weightSyncMs = this.clock() - syncStarted;
    }
    const runner = new EpisodeRunner(
      {
        sandbox: this.sandbox,
        ...rolePolicies(this.makePolicy(this.decoder, this.tokenizer, request.policyVersion, this.reader), this.frozen),
      },
      this.config.episode,
    );
    const collected = await collectGroups(
      runner,
      request.tasks,
      {
        step: request.step,
        seed: request.seed,
        G: request.G,
        claimedVersion: request.policyVersion,
        reward: this.config.reward,
      },
      this.clock,
    );
    // The step's episodes are over: their kept prefixes would only hold memory through the update.
    this.decoder.forget();
    return { ...collected, weightSyncMs };
  }

  async close(): Promise<void> {
    await this.decoder?.release();
    this.decoder = null;
  }
}

/**
 * `fathom train`: GRPO with the environment in the loop. Each step samples B tasks (a seeded per-epoch shuffle whose
 * position is checkpointed), has the collector roll out G episodes of each with the current policy (version =
 * updates applied so far) and score them, selects the trainable groups (each skip with a reason), and applies one
 * update from the stored ids (see `applyUpdate`). Writes `<out>/metrics.jsonl` (one record a step),
 * `<out>/rollouts/step-N.jsonl` (what the update saw, for `replay`), checkpoints every `checkpointEvery` steps and
 * after the last, and `<out>/final`.
 *
 * The prompt preflight runs first, on the first task: a run whose SFT and rollout prompts differ never starts.
 *
 * Guarantee: a run resumed from the checkpoint of step k writes the same records for steps k+1… as an
 * uninterrupted run with the same config (`time` aside): weights and AdamW moments are restored bit-exactly, the
 * task order depends only on (seed, epoch) and the stored position, and each group's sampling seed only on
 * (seed, step, group index). The same holds whichever collector samples the groups, as long as it honours the
 * group seeds (the learner-service's does).
 */
export async function runGrpo(config: GrpoTrainConfig, options: GrpoRunOptions = {}): Promise<GrpoRunResult> {
  const clock = options.clock ?? (() => performance.now());
  if (config.episode.submitAnswers && !options.collector && !options.sandbox)
    throw new TrainingError(
      'INVALID_CONFIG',
      'reward.source "env" scores episodes by their environment, and a local sandbox pool has none: run them in an ' +
        'OpenEnv environment (fathom train --env-url, or ENV_URL on the rollout workers)',
      { trainer: 'GRPO' },
    );
  const tasks = options.tasks ?? (await loadGrpoTasks(config));
  if (tasks.length === 0) throw new TrainingError('NO_DATA', 'the run has no tasks', { trainer: 'GRPO' });
  const initial = await loadCheckpoint(config.model.checkpoint);
  const tokenizer = initial.tokenizer;
  if (tokenizer === null)
    throw new TrainingError('INVALID_CONFIG', `${config.model.checkpoint} has no tokenizer`, { trainer: 'GRPO' });
  // A span reader under a frozen root never sees a root prompt: its reads are encoded by `encodeReadInput` from the one
  // renderer in SFT and in rollouts alike, so there is no prompt style to drift.
  const spanReaderOnly = !config.episode.trainRoot && initial.config.reader?.spanHead === true;
  if (!spanReaderOnly)
    preflightGrpo(tasks[0], await resolveSftPromptStyle(config), config.episode.promptStyle, tokenizer);

  const store = new CheckpointStore(config.out);
  const resumeDir = options.resume ? await store.latest() : null;
  if (options.resume && resumeDir === null)
    throw new TrainingError('RESUME_MISMATCH', `no complete checkpoint under ${config.out}/checkpoints`, {
      trainer: 'GRPO',
    });
  const resumed = resumeDir === null ? null : await store.load(resumeDir);
  const fingerprint = tasksFingerprint(tasks);
  if (resumed) {
    const changed = differingKeys(resumed.state.config, config);
    if (changed.length > 0)
      throw new TrainingError(
        'RESUME_MISMATCH',
        `${resumeDir} was written with a different config (${changed.join(', ')} differ)`,
        { trainer: 'GRPO' },
      );
    if (resumed.state.dataFingerprint !== fingerprint)
      throw new TrainingError('RESUME_MISMATCH', `${resumeDir} was trained on different tasks`, { trainer: 'GRPO' });
  }
  const model: Checkpoint = resumed
    ? { ...resumed.model, tokenizer: resumed.model.tokenizer ?? tokenizer }
    : { ...initial, params: copyParams(initial.params) };
  const learner = createLearner(config, model, initial, options.runtime);
  if (resumed) learner.optimizer.loadState(resumed.optimizer);
  const startStep = resumed?.state.step ?? 0;
  let policyVersion = resumed ? Number(resumed.state.extra.policyVersion) : 0;
  if (!Number.isInteger(policyVersion))
    throw new TrainingError('RESUME_MISMATCH', `${resumeDir} has no policy version`, { trainer: 'GRPO' });
  const sampler = new EpochSampler(tasks.length, config.seed, resumed?.state.data);
  const metricsPath = join(config.out, 'metrics.jsonl');
  const metrics = resumed ? await MetricsLog.resume(metricsPath, startStep) : await MetricsLog.create(metricsPath);
  const rollouts = new RolloutStore(config.out);
  await mkdir(config.out, { recursive: true });
  await writeFile(join(config.out, 'config.json'), JSON.stringify(config, null, 2) + '\n');

  const frozenRole = options.collector ? null : frozenRoleOf(config);
  const frozen =
    frozenRole === null
      ? null
      : { role: frozenRole.role, loaded: await loadPolicy(frozenRole.checkpoint, { runtime: options.runtime }) };
  const ownedPool =
    options.collector || options.sandbox ? null : await SandboxPool.start({ workers: config.sandbox.workers });
  const makePolicy: PolicyFactory =
    options.policyFactory ?? ((backend, tok, version, reader) => new SamplerPolicy(backend, tok, version, reader));
  const collector =
    options.collector ??
    new InProcessCollector(
      learner,
      tokenizer,
      config,
      options.sandbox ?? ownedPool!,
      makePolicy,
      clock,
      frozen === null ? undefined : { role: frozen.role, policy: frozen.loaded.policy },
    );
  const observer = options.observer;
  await observer?.onStart?.({ startStep, steps: config.steps, tasks: tasks.length, resumedFrom: resumeDir });
  await observer?.onPolicy?.({ version: policyVersion, step: startStep, model });

  /** `data`: where the step after `step` samples from (by default where the sampler is now). */
  const checkpoint = async (step: number, data = sampler.position) => {
    const state: TrainingState = {
      version: 1,
      step,
      seed: config.seed,
      data,
      dataFingerprint: fingerprint,
      config,
      extra: { policyVersion },
    };
    const dir = await store.save(model, learner.optimizer.state(), state);
    await observer?.onCheckpoint?.(dir, step);
    return dir;
  };

  /** A step's rollouts: where the sampler stood before its tasks were drawn, and the collection in flight. */
  interface StepRollouts {
    position: DataPosition;
    taskIndexes: number[];
    /** The policy version they are sampled with. */
    version: number;
    collected: Promise<(CollectedStep & { weightSyncMs: number }) | null>;
  }
  const startRollouts = (step: number): StepRollouts => {
    const position = sampler.position;
    const taskIndexes = sampler.next(config.batchSize);
    const collected = collector
      .collect({
        step,
        tasks: taskIndexes.map((i) => tasks[i]),
        taskIndexes,
        policyVersion,
        seed: config.seed,
        G: config.grpo.groupSize,
      })
      .catch((error: unknown) => {
        if (error instanceof StepStoppedError) return null;
        throw error;
      });
    // Awaited later (after an update, when overlapped); a failure must not go unhandled meanwhile.
    collected.catch(() => undefined);
    return { position, taskIndexes, version: policyVersion, collected };
  };
  // With maxStaleness ≥ 1, step s + 1's rollouts run with the current weights while step s's update runs; they
  // reach the update one version behind and are corrected by its importance ratios.
  const overlap = config.grpo.maxStaleness >= 1;
  let next: StepRollouts | null = null;

  let last: GrpoStepRecord | null = null;
  let checkpointDir = resumeDir ?? '';
  let stopped = false;
  try {
    for (let step = startStep + 1; step <= config.steps; step++) {
      const stepStarted = clock();
      const prefetched: StepRollouts | null = next;
      next = null;
      // A stop checkpoints the last completed step with the data position before this step's tasks were drawn, so
      // a resume draws them again.
      const stopBefore = async (position: DataPosition) => {
        stopped = true;
        if (step - 1 > startStep && (step - 1) % config.checkpointEvery !== 0)
          checkpointDir = await checkpoint(step - 1, position);
      };
      if (options.shouldStop && (await options.shouldStop(step))) {
        // Rollouts already started for this step finish first, unused.
        await prefetched?.collected.catch(() => null);
        await stopBefore(prefetched?.position ?? sampler.position);
        break;
      }
      const current = prefetched ?? startRollouts(step);
      const collected = await current.collected;
      const rolloutWaitMs = clock() - stepStarted;
      if (collected === null) {
        await stopBefore(current.position);
        break;
      }
      const { taskIndexes } = current;
      const selection = selectStepGroups(collected.groups, policyVersion, config.grpo, config.minOkSamples);
      await rollouts.write({ step, learnerVersion: policyVersion, taskIndexes, groups: collected.groups });
      if (overlap && step < config.steps) next = startRollouts(step + 1);
      const updateStarted = clock();
      const updatePhases: UpdateTimings = { logprobsMs: 0, trainMs: 0, optimizerMs: 0 };
      const update = await applyUpdate(learner, selection.trainable, learnerOptions(config), step, updatePhases);
      const updateMs = clock() - updateStarted;
      if (update) policyVersion++;
      last = stepRecord(
        step,
        { sampled: current.version, policy: policyVersion },
        collected.groups,
        selection,
        update,
        {
          generationMs: collected.generationMs,
          scoringMs: collected.scoringMs,
          updateMs,
          updatePhases,
          weightSyncMs: collected.weightSyncMs,
          rolloutWaitMs,
          stepMs: clock() - stepStarted,
        },
      );
      await metrics.write(last);
      // Checkpointed before the step is announced: a learner killed in between finds the step it recorded
      // (Run.step) on disk and resumes after it, instead of starting the run over.
      if (step === config.steps || step % config.checkpointEvery === 0)
        checkpointDir = await checkpoint(step, next?.position);
      await observer?.onStep?.(last, collected.groups);
      if (update) await observer?.onPolicy?.({ version: policyVersion, step, model });
    }
  } finally {
    // Rollouts started for a step the run did not reach (an update failed) end before the collector closes.
    await next?.collected.catch(() => null);
    await collector.close();
    await frozen?.loaded.release();
    await learner.graphs.release();
    await ownedPool?.close();
  }
  const finalDir = join(config.out, 'final');
  if (!stopped) {
    await saveCheckpoint(finalDir, model, config.exportDtype);
    await writePromptStyle(finalDir, config.episode.promptStyle);
  }
  return { finalDir, checkpointDir, last, policyVersion, stopped };
}
