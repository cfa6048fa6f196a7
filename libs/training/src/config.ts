import {
  DEFAULT_PROMPT_STYLE,
  ExportDtypeSchema,
  optimizerSchema,
  PromptStyleSchema,
  SeedSchema,
} from '@fathom/contracts';
import { z } from 'zod';
import { TrainingError } from './errors';
import { readJsonObject, withOverrides } from './json-file';

const positiveInt = z.number().int().positive();
const path = z.string().min(1);

/** Teacher examples (`fathom sft-data`, `SftExampleSchema`) joined on `task_id` with the tasks they were written for. */
const TeacherDataSchema = z.strictObject({
  format: z.literal('teacher'),
  /** SFT JSONL: one `SftExample` per line. */
  examples: path,
  /** Tasks JSONL (libs/tasks schema) holding every task the examples name. */
  tasks: path,
  /** Also train on each example's `llm()` sub-calls as leaf reading completions (`renderSftSubcall`). */
  subcalls: z.boolean().default(true),
  /**
   * Train leaf reads as extractive reads are decoded (`subcalls.extractive` in rollouts, `--extractive-reads` in
   * eval): each answer is scored under its chunk's span constraint, a softmax over the tokens that continue a
   * whole-word run of the chunk (or "unknown"). Reads whose answer is not such a span are dropped and counted.
   */
  extractiveReads: z.boolean().default(false),
  /**
   * The reader curriculum (`fathom sft-data --readers`): leaf sub-call examples mixed in at `perEpisode` reader
   * conversations per teacher episode, taken in file order (docs/TEACHER.md).
   */
  readers: z
    .strictObject({
      /** Reader JSONL: one `SftReaderExample` per line. */
      file: path,
      /** Reader conversations per episode conversation (e.g. 1 = as many readers as episodes). */
      perEpisode: z.number().nonnegative().max(100),
    })
    .optional(),
});

/** Conversations already rendered: one `ConversationLine` per line (see `data.source.ts`). */
const ConversationDataSchema = z.strictObject({
  format: z.literal('conversations'),
  conversations: path,
});

/**
 * Plain documents for language-model pretraining: one `TextLine` per line, every token trained. Nothing is
 * preflighted (a document is not a rollout prompt); a stage on this data is followed by one on teacher data.
 */
const TextDataSchema = z.strictObject({
  format: z.literal('text'),
  texts: path,
});

/**
 * One SFT run. Unknown keys are rejected at every level, so a typo fails at load instead of being ignored.
 * Paths are relative to the working directory. Defaults fit the shipped tiny model on a laptop-class CPU.
 */
export const SftConfigSchema = z.strictObject({
  model: z
    .strictObject({
      /** A Hugging Face–style checkpoint folder to fine-tune; absent: a fresh model from `config`. */
      checkpoint: path.optional(),
      /** config.json of a fresh model (default: libs/model's shipped tiny config). */
      config: path.optional(),
      /** Initialisation seed of a fresh model. */
      initSeed: z.number().int().min(0).default(0),
    })
    .prefault({})
    .refine((m) => !(m.checkpoint && m.config), { message: 'give model.checkpoint or model.config, not both' }),
  data: z.discriminatedUnion('format', [TeacherDataSchema, ConversationDataSchema, TextDataSchema]),
  /** How the teacher examples are rendered (ignored for pre-rendered conversations, which carry their own text). */
  promptStyle: PromptStyleSchema.default({ ...DEFAULT_PROMPT_STYLE }),
  /**
   * The `promptStyle` of the episode config GRPO rolls out with (libs/rlm `EpisodeConfig`; its default is
   * DEFAULT_PROMPT_STYLE). The preflight renders a rollout prompt with it and stops the run if the SFT data's
   * prompt differs.
   */
  rolloutPromptStyle: PromptStyleSchema.default({ ...DEFAULT_PROMPT_STYLE }),
  /** Most tokens of one conversation; longer ones are dropped and counted, never truncated. */
  seqLen: positiveInt.default(1024),
  /** Batch lengths are rounded up to a multiple of this (fewer distinct graph shapes). */
  padMultiple: positiveInt.default(64),
  /**
   * Length bucketing: each window of this many batches of the epoch's shuffle is sorted by length before it is cut
   * into batches (whose order is shuffled again), so a batch pads less. 0 = off (plain shuffle).
   */
  bucketWindow: z.number().int().nonnegative().default(16),
  /** Conversations per step. */
  batchSize: positiveInt.default(8),
  /** Optimizer steps. */
  steps: positiveInt.default(1000),
  optimizer: optimizerSchema({
    lr: 1e-3,
    warmupSteps: 50,
    minLr: 1e-4,
    weightDecay: 0.01,
    maxGradNorm: 1,
    beta1: 0.9,
    beta2: 0.95,
  }),
  /** Held-out loss every this many steps (and after the last); 0 = only after the last. */
  evalEvery: z.number().int().nonnegative().default(100),
  /** Share of tasks held out for the eval loss (all examples of a task go to the same side). */
  evalFraction: z.number().min(0).max(0.5).default(0.05),
  /** Checkpoint every this many steps; the last step is always checkpointed. */
  checkpointEvery: positiveInt.default(200),
  /** Seeds the held-out split and the per-epoch shuffles. */
  seed: SeedSchema.default(0),
  /** Run folder: metrics.jsonl, data.json, checkpoints/step-N/, final/. */
  out: path.default('runs/sft'),
  /** dtype of the exported `final/` model (checkpoints stay F32 so a resume is exact). */
  exportDtype: ExportDtypeSchema.default('F32'),
});

export type SftConfig = z.output<typeof SftConfigSchema>;
export type SftConfigInput = z.input<typeof SftConfigSchema>;

/** Validates a config object; throws TrainingError(INVALID_CONFIG) naming every bad field. */
export function parseSftConfig(input: unknown): SftConfig {
  const parsed = SftConfigSchema.safeParse(input);
  if (!parsed.success) throw new TrainingError('INVALID_CONFIG', z.prettifyError(parsed.error), { trainer: 'SFT' });
  return parsed.data;
}

/**
 * Reads a JSON config file, applies the `key=value` overrides (`fathom sft --set`, dotted paths into
 * `SftConfigSchema` such as `optimizer.lr=3e-4`; later ones win) and validates the result like file values.
 */
export async function loadSftConfig(file: string, overrides: readonly string[] = []): Promise<SftConfig> {
  const fail = (message: string) => new TrainingError('INVALID_CONFIG', message, { trainer: 'SFT' });
  return parseSftConfig(withOverrides(file, SftConfigSchema, await readJsonObject(file, fail), overrides, fail));
}
