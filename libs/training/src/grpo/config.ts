import {
  ExportDtypeSchema,
  GrpoConfigSchema,
  LearnerSettingsSchema,
  RewardConfigSchema,
  RunOptimizerSchema,
  SeedSchema,
} from '@fathom/contracts';
import { EpisodeConfigSchema } from '@fathom/rlm';
import { z } from 'zod';
import { TrainingError } from '../errors';

const positiveInt = z.number().int().positive();
const path = z.string().min(1);

/**
 * The resolved form of one GRPO run, what `runGrpo` consumes and writes to `<out>/config.json` (replay reads it
 * back). It is not a file format: a run is configured with the one run-config schema (`RunConfigSchema` of
 * `@fathom/contracts`, which `fathom train --config` and POST /runs both take, and which refuses what cannot be
 * trained), and `grpoTrainConfigOfRun` resolves it into this: checkpoint folders, the prompt style, the episode
 * engine's settings. Unknown keys are rejected at every level. Paths are relative to the working directory.
 */
export const GrpoTrainConfigSchema = z.strictObject({
  model: z.strictObject({
    /**
     * The Hugging Face–style checkpoint folder to start from (the SFT checkpoint). The reference policy of the
     * KL term is this same checkpoint, frozen.
     */
    checkpoint: path,
    /**
     * A second checkpoint folder, frozen for the whole run, that answers leaf llm() reads (the trained policy writes
     * every turn). Absent: the trained policy reads too. Not with `episode.trainSubcalls`.
     */
    readerCheckpoint: path.optional(),
    /**
     * A second checkpoint folder, frozen for the whole run, that writes every turn and drives child episodes while
     * the trained policy answers leaf llm() reads: GRPO of the reader (docs/GRPO.md). Needs `episode.trainRoot`
     * false and `episode.trainSubcalls`; not with `readerCheckpoint`.
     */
    rootCheckpoint: path.optional(),
  }),
  data: z.strictObject({
    /** Train-split tasks JSONL (libs/tasks schema). */
    tasks: path,
    /** Use only the first n tasks of the file (all when absent). */
    limit: positiveInt.optional(),
  }),
  /** GRPO steps (one policy update each, unless every group of the step is skipped). */
  steps: positiveInt.default(20),
  /** Prompts (groups) per step, B. */
  batchSize: positiveInt.default(4),
  /** How episodes are rolled out (libs/rlm). Training needs the sampler's distribution: temperature 1, no top-p/k. */
  episode: EpisodeConfigSchema.prefault({}),
  grpo: GrpoConfigSchema.prefault({}),
  reward: RewardConfigSchema.prefault({}),
  /** A run config's `optimizer` section, with its defaults. */
  optimizer: RunOptimizerSchema,
  /** microBatchSize, padMultiple, minOkSamples and entropy: a run config's `learner` section, with its defaults. */
  ...LearnerSettingsSchema.shape,
  sandbox: z.strictObject({ workers: positiveInt.default(2) }).prefault({}),
  /** Seeds task order, rollout sampling and nothing else: the same seed and config reproduce a run. */
  seed: SeedSchema.default(0),
  /** Checkpoint every this many steps; the last step is always checkpointed. */
  checkpointEvery: positiveInt.default(10),
  /** Run folder: metrics.jsonl, rollouts/step-N.jsonl, checkpoints/step-N/, final/. */
  out: path.default('out/grpo/run'),
  /** dtype of the exported `final/` model (checkpoints stay F32 so a resume is exact), as in the SFT config. */
  exportDtype: ExportDtypeSchema.default('F32'),
});

export type GrpoTrainConfig = z.output<typeof GrpoTrainConfigSchema>;
export type GrpoTrainConfigInput = z.input<typeof GrpoTrainConfigSchema>;

/** Validates a resolved config; throws TrainingError(INVALID_CONFIG) naming every bad field. */
export function parseGrpoTrainConfig(input: unknown): GrpoTrainConfig {
  const parsed = GrpoTrainConfigSchema.safeParse(input);
  if (!parsed.success) throw new TrainingError('INVALID_CONFIG', z.prettifyError(parsed.error), { trainer: 'GRPO' });
  return parsed.data;
}

/**
 * A run folder's `config.json` (what `runGrpo` wrote), validated: a folder written before the episode settings had
 * one name holds `episode.maxTurnTokens`, read as today's `episode.maxTokensPerTurn`, so its steps can still be
 * replayed.
 */
export function parseRunFolderConfig(input: unknown): GrpoTrainConfig {
  const episode = (input as { episode?: unknown } | null)?.episode;
  if (typeof episode !== 'object' || episode === null || !('maxTurnTokens' in episode))
    return parseGrpoTrainConfig(input);
  const { maxTurnTokens, ...rest } = episode as Record<string, unknown>;
  return parseGrpoTrainConfig({ ...(input as object), episode: { ...rest, maxTokensPerTurn: maxTurnTokens } });
}
