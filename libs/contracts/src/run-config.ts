import { z } from 'zod';
import { ExportDtypeSchema, SeedSchema } from './common';
import { GrpoConfigSchema } from './grpo';
import { PromptStyleSchema } from './prompt-style';
import { RewardConfigSchema } from './reward';
import { SplitSchema } from './task';
import { TextNameSchema, TextPathSchema } from './text';

/**
 * Ids that travel inside job ids (`${runId}:${step}:${groupId}`): no `:` (BullMQ accepts a custom job id with
 * `:` only when it has exactly three parts), no whitespace, short enough for a Redis key.
 */
export const ENTITY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
export const EntityIdSchema = z
  .string()
  .regex(ENTITY_ID_PATTERN, 'must be 1-128 letters, digits, "_", "." or "-", starting with a letter or digit');

/**
 * How deep `llm()` sub-calls may recurse: the one default of the run config's `rollout.maxDepth`, the sandbox's
 * `maxDepth` limit (libs/sandbox, which enforces it) and the env-service's `MAX_DEPTH`.
 */
export const DEFAULT_MAX_DEPTH = 2;

/**
 * Sizes a run may ask for. One step's episodes are sampled, scored and kept in the learner's memory together, so
 * batchSize × grpo.groupSize is bounded (the laptop default is 4 × 8 = 32; 1024 is a GPU-cluster step); the step
 * count bounds how long one run can occupy the learner and how many Step rows it writes.
 */
export const RUN_LIMITS = {
  /** Episodes per GRPO step: batchSize × grpo.groupSize. */
  maxEpisodesPerStep: 1024,
  /** GRPO steps of one run. */
  maxSteps: 100_000,
  /**
   * The shortest document the task generator writes (libs/tasks): below it a document cannot hold the largest task's
   * needles and distractors with filler around them.
   */
  minContextTokens: 512,
  /**
   * The longest generated document: about 4 MB of text (4 characters a token), what the env-service takes as one
   * document (MAX_DOCUMENT_BYTES) and what a sandbox worker copies into an isolate comfortably. A run holds all
   * `trainSize` of them in the learner and in every rollout worker.
   */
  maxContextTokens: 1_000_000,
  /** Model turns of one episode. */
  maxTurns: 64,
  /**
   * Tokens of one episode (and so of one turn): 128K, the longest context of the model family FATHOM runs (Llama and
   * Qwen2 checkpoints have up to 131,072 positions; the shipped tiny model has 4,096).
   */
  maxEpisodeTokens: 131_072,
} as const;

/**
 * The episode settings a run config's `rollout` section and the episode engine's config (libs/rlm
 * `EpisodeConfigSchema`, what `fathom eval`, `fathom ask` and queued evals run with) share: declared here once, so each
 * has one name, one bound and one default.
 */
export const EpisodeSettingsSchema = z.strictObject({
  /** Model turns per root episode; the turn that reaches it ends the episode (`truncated`, stop reason `turn_limit`). */
  maxTurns: z.number().int().positive().max(RUN_LIMITS.maxTurns).default(6),
  /**
   * New tokens one turn may sample; a turn that hits it without ending ends the episode (`token_limit`). At most
   * maxEpisodeTokens in a run config.
   */
  maxTokensPerTurn: z.number().int().positive().max(RUN_LIMITS.maxEpisodeTokens).default(512),
  /** Tokens of the whole root sequence (prompt, turns, observations); reaching it ends the episode (`token_limit`). */
  maxEpisodeTokens: z.number().int().positive().max(RUN_LIMITS.maxEpisodeTokens).default(4096),
  /** Retries of a sample that ended in `infra_error` before it is excluded from its group (and the update). */
  maxInfraRetries: z.number().int().min(0).max(10).default(2),
  /**
   * Train on the tokens of llm() sub-call episodes too, with the root episode's advantage (one advantage per root
   * episode either way). Off: sub-call token counts, latency and answers are recorded, their token sequences not.
   */
  trainSubcalls: z.boolean().default(false),
});

/** Defaults of an `optimizer` section: the run config (GRPO), the SFT and the reader SFT configs differ only in these. */
export interface OptimizerDefaults {
  lr: number;
  warmupSteps: number;
  /** Absent: the learning rate stays at `lr` after warm-up. */
  minLr?: number;
  weightDecay: number;
  maxGradNorm: number;
  beta1: number;
  beta2: number;
}

/**
 * The one `optimizer` section (AdamW, libs/training `createAdamW`) of every training config: the run config (POST
 * /runs, `fathom train`, the GRPO trainer) and the SFT configs declare it with this, each giving the `defaults` of its
 * absent keys.
 */
export function optimizerSchema(defaults: OptimizerDefaults) {
  const minLr = z.number().min(0).optional();
  return z
    .strictObject({
      /** Peak learning rate. */
      lr: z.number().positive().max(1).default(defaults.lr),
      /** Linear warm-up from 0 to `lr` over this many steps, then cosine decay to `minLr` at the last step. */
      warmupSteps: z.number().int().min(0).max(RUN_LIMITS.maxSteps).default(defaults.warmupSteps),
      /** Learning rate at the last step; absent: constant after warm-up (= `lr`). */
      minLr: defaults.minLr === undefined ? minLr : minLr.default(defaults.minLr),
      /** Decoupled weight decay (AdamW) on matrices; norms and biases never decay. */
      weightDecay: z.number().min(0).default(defaults.weightDecay),
      /** Global gradient-norm clip. */
      maxGradNorm: z.number().positive().default(defaults.maxGradNorm),
      beta1: z.number().min(0).lt(1).default(defaults.beta1),
      beta2: z.number().min(0).lt(1).default(defaults.beta2),
    })
    .refine((o) => o.minLr === undefined || o.minLr <= o.lr, { message: 'minLr must not exceed lr', path: ['minLr'] })
    .prefault({});
}

export type OptimizerSettings = z.output<ReturnType<typeof optimizerSchema>>;

/** A run's AdamW settings (`optimizer`), what the GRPO trainer runs with; by default constant after warm-up. */
export const RunOptimizerSchema = optimizerSchema({
  lr: 1e-5,
  warmupSteps: 0,
  weightDecay: 0,
  maxGradNorm: 0.5,
  beta1: 0.9,
  beta2: 0.99,
});

/** How the learner batches a step (`learner`): the one declaration of these settings and their defaults. */
export const LearnerSettingsSchema = z.strictObject({
  /**
   * Sequences per learner graph call; the step's loss is aggregated over all of them before any gradient.
   * Small by default: onnxruntime keeps a session and memory arena per batch shape (docs/RESULTS.md).
   */
  microBatchSize: z.number().int().positive().max(4096).default(2),
  /** Learner batch lengths are rounded up to a multiple of this (fewer graph shapes, fewer sessions). */
  padMultiple: z.number().int().positive().max(8192).default(512),
  /** A group with fewer scorable samples than this is skipped (`too_few_samples`). */
  minOkSamples: z.number().int().min(2).default(2),
  /** Log the policy's mean token entropy on trained tokens (one extra forward pass). */
  entropy: z.boolean().default(true),
});

/** `model.checkpoint` value that means "the shipped tiny default model" (libs/model's default config). */
export const DEFAULT_MODEL_CHECKPOINT = 'default';

/**
 * The configuration of one training run: the one run-config schema. POST /runs accepts it, the Run row stores it
 * (after parsing, so every default is written down with the run), and `fathom train --config FILE` reads the same
 * JSON, so a config file runs in one process or through the services unchanged. `RunConfigSchema.parse({ name })`
 * gives a run that works on one laptop-class machine with the shipped default model. Unknown keys are rejected at
 * every level.
 *
 * The group size G and maxStaleness are GRPO hyper-parameters and live in `grpo` (`grpo.groupSize`,
 * `grpo.maxStaleness`) only, so there is one value for each.
 */
export const RunConfigSchema = z
  .strictObject({
    /** Human-readable name shown in lists; not unique. */
    name: TextNameSchema,
    /** Seeds task sampling, rollout sampling and initialisation; the same seed and config reproduce a run. */
    seed: SeedSchema.default(0),
    model: z
      .strictObject({
        /** A Hugging Face-style checkpoint folder, or "default" for the shipped tiny model. */
        checkpoint: TextPathSchema.default(DEFAULT_MODEL_CHECKPOINT),
        /**
         * A second checkpoint folder, frozen for the whole run, that answers leaf llm() reads while the trained
         * policy writes every turn (docs/GRPO.md). Absent: the trained policy reads too. Not with
         * rollout.trainSubcalls: the reader's tokens are not the trained policy's.
         */
        readerCheckpoint: TextPathSchema.optional(),
        /**
         * A second checkpoint folder, frozen for the whole run, that writes every turn while the trained policy
         * answers leaf llm() reads: GRPO of the reader (docs/GRPO.md). Only the reads are trained, so it needs
         * rollout.trainSubcalls; not with readerCheckpoint.
         */
        rootCheckpoint: TextPathSchema.optional(),
      })
      .prefault({}),
    data: z
      .strictObject({
        /** A JSONL task file (libs/tasks schema); without it, tasks are generated from `seed`. */
        trainFile: TextPathSchema.optional(),
        /** The split tasks are drawn from. */
        split: SplitSchema.default('train'),
        /** How many training tasks to use (the first n of the file, or n generated). */
        trainSize: z.number().int().positive().max(1_000_000).default(1000),
        /** Context-length bounds of generated tasks, in tokens. */
        minContextTokens: z
          .number()
          .int()
          .min(RUN_LIMITS.minContextTokens)
          .max(RUN_LIMITS.maxContextTokens)
          .default(4096),
        maxContextTokens: z
          .number()
          .int()
          .min(RUN_LIMITS.minContextTokens)
          .max(RUN_LIMITS.maxContextTokens)
          .default(16_384),
      })
      .prefault({})
      .refine((d) => d.minContextTokens <= d.maxContextTokens, {
        message: 'minContextTokens must not exceed maxContextTokens',
        path: ['minContextTokens'],
      }),
    grpo: GrpoConfigSchema.prefault({}),
    reward: RewardConfigSchema.prefault({}),
    optimizer: RunOptimizerSchema,
    rollout: z
      .strictObject({
        ...EpisodeSettingsSchema.shape,
        /**
         * Sampling temperature of the root's turns. GRPO trains on the log-probs of the distribution the tokens
         * were drawn from, which the learner computes at temperature 1, so the trained tokens must be sampled at 1:
         * this is 1, except with a frozen root (`model.rootCheckpoint`), whose turns may be greedy (0) while the
         * trained leaf reads sample at `leafTemperature` 1.
         */
        temperature: z.number().min(0).max(2).default(1),
        /** Recursion depth of llm() sub-calls (`DEFAULT_MAX_DEPTH`, as in the original FATHOM). */
        maxDepth: z.number().int().positive().max(8).default(DEFAULT_MAX_DEPTH),
        /**
         * The prompt renderer's style. Absent: the style the checkpoint records (fathom_prompt_style.json), so
         * rollouts see the prompts the SFT policy was trained on; the run's preflight checks it either way.
         */
        promptStyle: PromptStyleSchema.optional(),
        /**
         * Leaf llm() reads answer with a span of their chunk or "unknown" (extractive decoding, docs/EVAL.md). With
         * trainSubcalls the learner scores their tokens under the same constraint.
         */
        extractiveReads: z.boolean().default(false),
        /**
         * Temperature of leaf llm() reads (0 = greedy); absent: the rollout temperature. Leaf reads whose tokens
         * are not trained (a model.readerCheckpoint, or trainSubcalls off) may read greedily while the policy
         * samples its turns. With trainSubcalls only when the root is frozen (`model.rootCheckpoint`), and then 1.
         */
        leafTemperature: z.number().min(0).max(2).optional(),
      })
      .prefault({}),
    learner: LearnerSettingsSchema.prefault({}),
    /** GRPO steps to run. */
    steps: z.number().int().positive().max(RUN_LIMITS.maxSteps).default(20),
    /** Prompts (groups) per step, B; B × grpo.groupSize is at most RUN_LIMITS.maxEpisodesPerStep. */
    batchSize: z.number().int().positive().max(RUN_LIMITS.maxEpisodesPerStep).default(4),
    /** Write a checkpoint every this many steps (the last step is always checkpointed). */
    checkpointEvery: z.number().int().positive().max(RUN_LIMITS.maxSteps).default(10),
    /** dtype of the exported final model (step checkpoints stay F32 so a resume is exact). */
    exportDtype: ExportDtypeSchema.default('F32'),
  })
  .superRefine((config, ctx) => {
    const episodes = config.batchSize * config.grpo.groupSize;
    if (episodes > RUN_LIMITS.maxEpisodesPerStep)
      ctx.addIssue({
        code: 'custom',
        path: ['batchSize'],
        message:
          `batchSize × grpo.groupSize = ${config.batchSize} × ${config.grpo.groupSize} = ${episodes} episodes per ` +
          `step; at most ${RUN_LIMITS.maxEpisodesPerStep}`,
      });
    if (config.model.rootCheckpoint !== undefined && config.model.readerCheckpoint !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['model', 'rootCheckpoint'],
        message: 'rootCheckpoint with readerCheckpoint: one of the two roles must be the trained policy',
      });
    if (config.model.rootCheckpoint !== undefined && !config.rollout.trainSubcalls)
      ctx.addIssue({
        code: 'custom',
        path: ['model', 'rootCheckpoint'],
        message: 'rootCheckpoint without rollout.trainSubcalls: the leaf reads are the only trained tokens',
      });
    if (config.model.readerCheckpoint !== undefined && config.rollout.trainSubcalls)
      ctx.addIssue({
        code: 'custom',
        path: ['model', 'readerCheckpoint'],
        message: 'readerCheckpoint with trainSubcalls: the frozen reader samples the sub-calls, not the trained policy',
      });
    const frozenRoot = config.model.rootCheckpoint !== undefined;
    if (config.rollout.leafTemperature !== undefined && config.rollout.trainSubcalls && !frozenRoot)
      ctx.addIssue({
        code: 'custom',
        path: ['rollout', 'leafTemperature'],
        message: "leafTemperature with trainSubcalls: trained sub-call tokens are sampled at the rollout's temperature",
      });
    // The trained tokens: the root's turns, or with a frozen root only the leaf reads.
    const trained = frozenRoot
      ? { temperature: config.rollout.leafTemperature ?? config.rollout.temperature, field: 'leafTemperature' }
      : { temperature: config.rollout.temperature, field: 'temperature' };
    if (trained.temperature !== 1)
      ctx.addIssue({
        code: 'custom',
        path: ['rollout', trained.field],
        message:
          `GRPO samples the trained tokens at temperature 1 (the learner scores tokens at 1); got ${trained.temperature}` +
          (frozenRoot ? ' for the leaf reads the frozen root leaves to the trained policy' : ''),
      });
    if (config.rollout.maxTokensPerTurn > config.rollout.maxEpisodeTokens)
      ctx.addIssue({
        code: 'custom',
        path: ['rollout', 'maxTokensPerTurn'],
        message:
          `maxTokensPerTurn ${config.rollout.maxTokensPerTurn} exceeds maxEpisodeTokens ` +
          `${config.rollout.maxEpisodeTokens}: no turn can sample more than its episode holds`,
      });
    if (config.grpo.maxCompletionTokens > RUN_LIMITS.maxEpisodeTokens)
      ctx.addIssue({
        code: 'custom',
        path: ['grpo', 'maxCompletionTokens'],
        message:
          `maxCompletionTokens ${config.grpo.maxCompletionTokens} exceeds ${RUN_LIMITS.maxEpisodeTokens}, the most ` +
          'tokens an episode may have',
      });
    if (config.learner.minOkSamples > config.grpo.groupSize)
      ctx.addIssue({
        code: 'custom',
        path: ['learner', 'minOkSamples'],
        message: `minOkSamples ${config.learner.minOkSamples} exceeds grpo.groupSize ${config.grpo.groupSize}`,
      });
  });

export type RunConfig = z.infer<typeof RunConfigSchema>;
export type RunConfigInput = z.input<typeof RunConfigSchema>;
