import { z } from 'zod';
import { SeedSchema } from './common';
import { GrpoConfigSchema } from './grpo';
import { RewardConfigSchema } from './reward';
import { SplitSchema } from './task';

/**
 * Ids that travel inside job ids (`${runId}:${step}:${groupId}`): no `:` (BullMQ accepts a custom job id with
 * `:` only when it has exactly three parts), no whitespace, short enough for a Redis key.
 */
export const ENTITY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const EntityIdSchema = z
  .string()
  .regex(ENTITY_ID_PATTERN, 'must be 1-128 letters, digits, "_", "." or "-", starting with a letter or digit');

/** `model.checkpoint` value that means "the shipped tiny default model" (libs/model's default config). */
export const DEFAULT_MODEL_CHECKPOINT = 'default';

/**
 * The configuration of one training run, as POST /runs accepts it and as the Run row stores it (after parsing,
 * so every default is written down with the run). `RunConfigSchema.parse({ name })` gives a run that works on
 * one laptop-class machine with the shipped default model. Unknown keys are rejected at every level.
 *
 * The group size G and maxStaleness are GRPO hyper-parameters and live in `grpo` (`grpo.groupSize`,
 * `grpo.maxStaleness`) only, so there is one value for each.
 */
export const RunConfigSchema = z.strictObject({
  /** Human-readable name shown in lists; not unique. */
  name: z.string().trim().min(1).max(200),
  /** Seeds task sampling, rollout sampling and initialisation; the same seed and config reproduce a run. */
  seed: SeedSchema.default(0),
  model: z
    .strictObject({
      /** A Hugging Face-style checkpoint folder, or "default" for the shipped tiny model. */
      checkpoint: z.string().min(1).max(1024).default(DEFAULT_MODEL_CHECKPOINT),
    })
    .prefault({}),
  data: z
    .strictObject({
      /** A JSONL task file (libs/tasks schema); without it, tasks are generated from `seed`. */
      trainFile: z.string().min(1).max(1024).optional(),
      /** The split tasks are drawn from. */
      split: SplitSchema.default('train'),
      /** How many training tasks to use (the first n of the file, or n generated). */
      trainSize: z.number().int().positive().max(1_000_000).default(1000),
      /** Context-length bounds of generated tasks, in tokens. */
      minContextTokens: z.number().int().positive().default(4096),
      maxContextTokens: z.number().int().positive().default(16_384),
    })
    .prefault({})
    .refine((d) => d.minContextTokens <= d.maxContextTokens, {
      message: 'minContextTokens must not exceed maxContextTokens',
      path: ['minContextTokens'],
    }),
  grpo: GrpoConfigSchema.prefault({}),
  reward: RewardConfigSchema.prefault({}),
  optimizer: z
    .strictObject({
      learningRate: z.number().positive().max(1).default(1e-5),
      weightDecay: z.number().min(0).default(0),
      /** Global gradient-norm clip. */
      maxGradNorm: z.number().positive().default(0.5),
    })
    .prefault({}),
  rollout: z
    .strictObject({
      /** Model turns per episode (each may run code); the turn that reaches it ends the episode. */
      maxTurns: z.number().int().positive().max(64).default(6),
      /** Tokens the policy may sample in one turn. */
      maxTokensPerTurn: z.number().int().positive().max(32_768).default(256),
      temperature: z.number().min(0).max(2).default(1),
      /** Recursion depth of llm() sub-calls (2 in training, as in the original FATHOM). */
      maxDepth: z.number().int().positive().max(8).default(2),
    })
    .prefault({}),
  /** GRPO steps to run. */
  steps: z.number().int().positive().max(1_000_000).default(20),
  /** Prompts (groups) per step, B. */
  batchSize: z.number().int().positive().max(4096).default(4),
  /** Write a checkpoint every this many steps (the last step is always checkpointed). */
  checkpointEvery: z.number().int().positive().default(10),
});

export type RunConfig = z.infer<typeof RunConfigSchema>;
export type RunConfigInput = z.input<typeof RunConfigSchema>;
