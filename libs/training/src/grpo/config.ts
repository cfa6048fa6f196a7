import { readFile } from 'node:fs/promises';
import { GrpoConfigSchema, RewardConfigSchema, SeedSchema } from '@fathom/contracts';
import { EpisodeConfigSchema } from '@fathom/rlm';
import { z } from 'zod';
import { optimizerSchema, PromptStyleSchema } from '../config';
import { GrpoTrainError, GrpoTrainErrorCode } from './errors';

const positiveInt = z.number().int().positive();
const path = z.string().min(1);

/**
 * One in-process GRPO run (`fathom train`). Unknown keys are rejected at every level. The group size G is
 * `grpo.groupSize` (one value, as in the service run config). Paths are relative to the working directory.
 */
export const GrpoTrainConfigSchema = z
  .strictObject({
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
    optimizer: optimizerSchema({
      lr: 1e-5,
      warmupSteps: 0,
      minLr: 1e-5,
      weightDecay: 0,
      maxGradNorm: 0.5,
      beta1: 0.9,
      beta2: 0.99,
    }),
    /** A group with fewer scorable samples than this (infra errors excluded) is skipped (`too_few_samples`). */
    minOkSamples: z.number().int().min(2).default(2),
    /** Sequences per learner graph call; the step's loss is aggregated over all of them before any gradient. */
    microBatchSize: positiveInt.default(8),
    /** Learner batch lengths are rounded up to a multiple of this (fewer distinct graph shapes). */
    padMultiple: positiveInt.default(64),
    /** Compute the policy's mean token entropy on trained tokens (one extra forward pass with full logits). */
    entropy: z.boolean().default(true),
    preflight: z
      .strictObject({
        /**
         * The prompt style the SFT checkpoint was trained with. Absent: read from the SFT run's training state
         * (the checkpoint folder itself, or `<run>/checkpoints/` when the checkpoint is `<run>/final`).
         */
        sftPromptStyle: PromptStyleSchema.optional(),
      })
      .prefault({}),
    sandbox: z.strictObject({ workers: positiveInt.default(2) }).prefault({}),
    /** Seeds task order, rollout sampling and nothing else: the same seed and config reproduce a run. */
    seed: SeedSchema.default(0),
    /** Checkpoint every this many steps; the last step is always checkpointed. */
    checkpointEvery: positiveInt.default(10),
    /** Run folder: metrics.jsonl, rollouts/step-N.jsonl, checkpoints/step-N/, final/. */
    out: path.default('out/grpo/run'),
    /** dtype of the exported `final/` model (checkpoints stay F32 so a resume is exact), as in the SFT config. */
    exportDtype: z.enum(['F32', 'F16', 'BF16']).default('F32'),
  })
  .superRefine((c, ctx) => {
    // The trained tokens: the root's (sampling.temperature), or with a frozen root only the leaf reads'.
    const s = c.episode.sampling;
    const trainedTemperature = c.episode.trainRoot
      ? s.temperature
      : (c.episode.subcalls.leafTemperature ?? s.temperature);
    if (trainedTemperature !== 1 || s.topP !== 1 || s.topK !== 0)
      ctx.addIssue({
        code: 'custom',
        path: ['episode', 'sampling'],
        message:
          'GRPO trains on the log-probs of the distribution the tokens were drawn from; the learner computes them at ' +
          'temperature 1 without truncation, so the trained tokens must be sampled at temperature 1 (with ' +
          'episode.trainRoot false: subcalls.leafTemperature), topP 1, topK 0',
      });
    if (c.model.readerCheckpoint !== undefined && c.episode.trainSubcalls)
      ctx.addIssue({
        code: 'custom',
        path: ['model', 'readerCheckpoint'],
        message: 'readerCheckpoint with trainSubcalls: the frozen reader samples the sub-calls, not the trained policy',
      });
    if (c.model.rootCheckpoint !== undefined && c.model.readerCheckpoint !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['model', 'rootCheckpoint'],
        message: 'rootCheckpoint with readerCheckpoint: one of the two roles must be the trained policy',
      });
    if ((c.model.rootCheckpoint !== undefined) !== !c.episode.trainRoot)
      ctx.addIssue({
        code: 'custom',
        path: ['episode', 'trainRoot'],
        message:
          'model.rootCheckpoint and episode.trainRoot false go together: the root is untrained exactly when a frozen ' +
          'checkpoint writes it',
      });
    if (c.minOkSamples > c.grpo.groupSize)
      ctx.addIssue({
        code: 'custom',
        path: ['minOkSamples'],
        message: `minOkSamples ${c.minOkSamples} exceeds grpo.groupSize ${c.grpo.groupSize}`,
      });
  });

export type GrpoTrainConfig = z.output<typeof GrpoTrainConfigSchema>;
export type GrpoTrainConfigInput = z.input<typeof GrpoTrainConfigSchema>;

/** Command-line overrides of a config file's values. */
export interface GrpoTrainOverrides {
  steps?: number;
  batchSize?: number;
  groupSize?: number;
  lr?: number;
  seed?: number;
  out?: string;
  checkpoint?: string;
  tasks?: string;
}

/** Validates a config object; throws GrpoTrainError(INVALID_CONFIG) naming every bad field. */
export function parseGrpoTrainConfig(input: unknown): GrpoTrainConfig {
  const parsed = GrpoTrainConfigSchema.safeParse(input);
  if (!parsed.success) throw new GrpoTrainError(GrpoTrainErrorCode.INVALID_CONFIG, z.prettifyError(parsed.error));
  return parsed.data;
}

const objectAt = (raw: Record<string, unknown>, key: string): Record<string, unknown> => {
  const value = raw[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? { ...value } : {};
};

/** Applies overrides to a raw config object (before validation, so they are validated like file values). */
export function applyGrpoOverrides(raw: unknown, o: GrpoTrainOverrides): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new GrpoTrainError(GrpoTrainErrorCode.INVALID_CONFIG, 'the config must be a JSON object');
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const set = (section: string, key: string, value: unknown) => {
    if (value !== undefined) out[section] = { ...objectAt(out, section), [key]: value };
  };
  for (const key of ['steps', 'batchSize', 'seed', 'out'] as const) if (o[key] !== undefined) out[key] = o[key];
  set('grpo', 'groupSize', o.groupSize);
  set('optimizer', 'lr', o.lr);
  set('model', 'checkpoint', o.checkpoint);
  set('data', 'tasks', o.tasks);
  return out;
}

/** Reads a JSON config file, applies the overrides and validates the result. */
export async function loadGrpoTrainConfig(file: string, overrides: GrpoTrainOverrides = {}): Promise<GrpoTrainConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new GrpoTrainError(GrpoTrainErrorCode.INVALID_CONFIG, `${file}: ${(error as Error).message}`);
  }
  return parseGrpoTrainConfig(applyGrpoOverrides(raw, overrides));
}
