import { existsSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import {
  DEFAULT_MODEL_CHECKPOINT,
  DEFAULT_PROMPT_STYLE,
  RunConfigSchema,
  type RunConfig,
  type Task,
} from '@fathom/contracts';
import { z } from 'zod';
import { generateTasks, readTasksJsonl } from '@fathom/tasks';
import { readJsonObject, withOverrides } from '../json-file';
import { pairedReaderDir } from '../policy.loader';
import { readPromptStyle } from '../prompt-style.file';
import { parseGrpoTrainConfig, type GrpoTrainConfig } from './config';
import { TrainingError } from '../errors';

/**
 * Where `model.checkpoint: "default"` points: the shipped default model, a root policy with its paired span reader
 * (`reader/`), and what `fathom ask`, `fathom eval` and the rollout workers' Inference run with no model named. Like every
 * relative path of a run config (checkpoints, task files), it is resolved against the working directory — the
 * repository root for every service and CLI command, and the base the admin API's DATA_ROOTS are checked against —
 * never against where a source file lies.
 */
export const DEFAULT_POLICY_DIR = resolve('data', 'checkpoints', 'default');

/** `dir` when it holds a checkpoint; otherwise INVALID_CONFIG naming the run-config field and the path. */
function existingCheckpoint(field: string, dir: string): string {
  if (!existsSync(join(dir, 'config.json')))
    throw new TrainingError('INVALID_CONFIG', `${field}: no checkpoint at ${dir}`, { trainer: 'GRPO' });
  return dir;
}

/** The checkpoint folder a run starts from; throws INVALID_CONFIG naming the path when it does not exist. */
export function runCheckpointDir(run: Pick<RunConfig, 'model'>): string {
  const { checkpoint } = run.model;
  return existingCheckpoint(
    'model.checkpoint',
    checkpoint === DEFAULT_MODEL_CHECKPOINT ? DEFAULT_POLICY_DIR : resolve(checkpoint),
  );
}

/** A run's frozen checkpoint folder for `field`, if it names one; throws INVALID_CONFIG when it does not exist. */
function frozenDir(run: Pick<RunConfig, 'model'>, field: 'readerCheckpoint' | 'rootCheckpoint'): string | undefined {
  const dir = run.model[field];
  return dir === undefined ? undefined : existingCheckpoint(`model.${field}`, resolve(dir));
}

/**
 * The frozen reader of a run: `model.readerCheckpoint`, else the reader paired with its checkpoint
 * (`<checkpoint>/reader`, as the shipped default holds it) unless the run trains the reader under a frozen root.
 */
function readerDir(run: Pick<RunConfig, 'model'>, checkpoint: string): string | undefined {
  const named = frozenDir(run, 'readerCheckpoint');
  if (named !== undefined || run.model.rootCheckpoint !== undefined) return named;
  return pairedReaderDir(checkpoint) ?? undefined;
}

/**
 * The tasks of a run, in order: the first `trainSize` tasks of `data.trainFile`, or `trainSize` tasks generated
 * from the run's seed, split and context bounds. Deterministic, so the learner and every rollout worker hold the
 * same list without shipping it.
 */
export async function runTasks(run: Pick<RunConfig, 'data' | 'seed'>): Promise<Task[]> {
  const { trainFile, trainSize, split, minContextTokens, maxContextTokens } = run.data;
  if (trainFile === undefined) {
    return [
      ...generateTasks({
        split,
        n: trainSize,
        seed: run.seed,
        minTokens: minContextTokens,
        maxTokens: maxContextTokens,
      }),
    ];
  }
  const tasks: Task[] = [];
  for await (const task of readTasksJsonl(resolve(trainFile))) {
    if (tasks.length === trainSize) break;
    tasks.push(task);
  }
  if (tasks.length === 0) throw new TrainingError('NO_DATA', `${trainFile} has no tasks`, { trainer: 'GRPO' });
  return tasks;
}

/**
 * Reads a run config file — the JSON POST /runs takes (`RunConfigSchema`) — applies the `key=value` overrides
 * (`fathom train --set`, dotted paths into the schema such as `rollout.maxTurns=8`; later ones win) and validates the
 * result like file values; throws TrainingError(INVALID_CONFIG) naming the file and every bad field or override.
 */
export async function loadRunConfig(file: string, overrides: readonly string[] = []): Promise<RunConfig> {
  const fail = (message: string) => new TrainingError('INVALID_CONFIG', message, { trainer: 'GRPO' });
  const raw = withOverrides(file, RunConfigSchema, await readJsonObject(file, fail), overrides, fail);
  const parsed = RunConfigSchema.safeParse(raw);
  if (!parsed.success) throw fail(`${file}: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Where `fathom train --config FILE` writes its run without `--out`: `out/grpo/<FILE's name without .json>`. */
export function defaultRunFolder(file: string): string {
  return join('out', 'grpo', basename(file, extname(file)));
}

/**
 * The resolved GRPO config of a run (`GrpoTrainConfig`, what `runGrpo` consumes): the learner-service and
 * `fathom train` both run `runGrpo` with it, so a run started through the admin API and `fathom train` with the same
 * config file compute the same thing. `out` is the run's folder. `data.tasks` names the run's task file:
 * `data.trainFile`, or `<out>/tasks.jsonl` for generated tasks (both callers pass `runTasks(run)` to `runGrpo` and
 * never write or read that file).
 */
export async function grpoTrainConfigOfRun(run: RunConfig, out: string): Promise<GrpoTrainConfig> {
  const checkpoint = runCheckpointDir(run);
  const promptStyle = run.rollout.promptStyle ?? (await readPromptStyle(checkpoint)) ?? { ...DEFAULT_PROMPT_STYLE };
  const { rollout: r, learner: l } = run;
  return parseGrpoTrainConfig({
    model: {
      checkpoint,
      readerCheckpoint: readerDir(run, checkpoint),
      rootCheckpoint: frozenDir(run, 'rootCheckpoint'),
    },
    data: { tasks: run.data.trainFile === undefined ? join(out, 'tasks.jsonl') : resolve(run.data.trainFile) },
    steps: run.steps,
    batchSize: run.batchSize,
    episode: {
      maxTurns: r.maxTurns,
      maxTokensPerTurn: r.maxTokensPerTurn,
      maxEpisodeTokens: r.maxEpisodeTokens,
      promptStyle,
      trainSubcalls: r.trainSubcalls,
      trainRoot: run.model.rootCheckpoint === undefined,
      subcalls: { extractive: r.extractiveReads, leafTemperature: r.leafTemperature },
      maxInfraRetries: r.maxInfraRetries,
      submitAnswers: run.reward.source === 'env',
      sandboxLimits: { maxDepth: r.maxDepth },
      sampling: { temperature: r.temperature },
    },
    grpo: run.grpo,
    reward: run.reward,
    optimizer: run.optimizer,
    minOkSamples: l.minOkSamples,
    microBatchSize: l.microBatchSize,
    padMultiple: l.padMultiple,
    entropy: l.entropy,
    seed: run.seed,
    checkpointEvery: run.checkpointEvery,
    exportDtype: run.exportDtype,
    out,
  });
}
