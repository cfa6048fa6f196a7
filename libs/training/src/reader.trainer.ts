import { join } from 'node:path';
import { deriveSeed, ExportDtypeSchema, optimizerSchema, Rng, SeedSchema, type Split } from '@fathom/contracts';
import {
  chooseSpan,
  createDefaultModel,
  DEFAULT_CONFIG_PATH,
  HashedWordTokenizer,
  initParams,
  loadCheckpoint,
  ModelGraphs,
  packSpanReads,
  readWordVectorSet,
  saveCheckpoint,
  spanTrainBatch,
  type Checkpoint,
  type ReaderHeads,
  type SpanReadInput,
  type Tokenizer,
  WORD_VECTOR_PROJ,
  WORD_VECTORS,
} from '@fathom/model';
import { isCorrect } from '@fathom/rewards';
import { encodeReadInput, goldSpan, spanReadInput, spanText, type ReadInput } from '@fathom/rlm';
import { generateReaderExamples, type ReaderExample } from '@fathom/tasks';
import { z } from 'zod';
import { TrainingError } from './errors';
import { readJsonObject, withOverrides } from './json-file';
import { MetricsLog } from './metrics.log';
import { createAdamW } from './optimizer';

const share = z.number().min(0).max(1);

/**
 * One stage of the reader curriculum: `steps` updates on reader examples drawn with these shares
 * (`generateReaderExamples` of `@fathom/tasks`; each share's meaning is documented there).
 */
const ReaderStageSchema = z.strictObject({
  steps: z.number().int().positive(),
  maxChunkChars: z.number().int().min(400).max(4000).default(1000),
  recallShare: share.optional(),
  evidenceShare: share.optional(),
  keyShare: share.optional(),
  unknownShare: share.optional(),
  sharedShare: share.optional(),
  inventedShare: share.optional(),
  inventedDistractorShare: share.optional(),
  inventedQuestionShare: share.optional(),
  unownedShare: share.optional(),
  /**
   * Share of the chunk's words (those not in the question) whose tokens are replaced by random ordinary tokens, their
   * word features kept: word dropout (Iyyer et al. 2015) for a hashed vocabulary. Every word of the generated frames is
   * seen in training, so without it a word never seen marks the answer (the new value) and a sentence of an unseen
   * wording is read at its first unseen word; with it, unseen words are everywhere and the answer must be found by
   * the key, the sentence and the word's shape. Default 0.
   */
  wordNoise: share.default(0),
});

/**
 * `fathom sft` for a reader: the span head's loss (−log p(start) − log p(end | start) of the gold span, or of the
 * no-answer position for "unknown") on reader examples generated on the fly, stage after stage.
 */
export const ReaderSftConfigSchema = z.strictObject({
  kind: z.literal('reader'),
  model: z
    .strictObject({
      checkpoint: z.string().min(1).optional(),
      config: z.string().min(1).optional(),
      initSeed: z.number().int().min(0).default(0),
      /**
       * A fresh model's tokenizer: `hashedWordBuckets` gives it a `HashedWordTokenizer` (one token per word) with this
       * many buckets; absent, the config's byte-level tokenizer.
       */
      hashedWordBuckets: z
        .number()
        .int()
        .min(2)
        .max(1 << 20)
        .optional(),
      /**
       * A fresh model's pretrained word vectors: the folder of a word-vector set (`bash scripts/word-vectors.sh`
       * writes out/word-vectors), frozen as `reader.word_vectors` and projected into the model by a learned map.
       */
      wordVectors: z.string().min(1).optional(),
    })
    .prefault({})
    .refine((m) => !(m.checkpoint && m.config), { message: 'give model.checkpoint or model.config, not both' })
    .refine((m) => !(m.checkpoint && m.wordVectors), { message: 'model.wordVectors: a checkpoint keeps its own' }),
  stages: z.array(ReaderStageSchema).min(1),
  batchSize: z.number().int().positive().max(256).default(16),
  padMultiple: z.number().int().positive().default(64),
  optimizer: optimizerSchema({
    lr: 2e-3,
    warmupSteps: 20,
    minLr: 1e-4,
    weightDecay: 0.01,
    maxGradNorm: 1,
    beta1: 0.9,
    beta2: 0.95,
  }),
  /** Greedy reads of `evalExamples` eval-split examples (the last stage's shares) every `evalEvery` steps. */
  evalEvery: z.number().int().nonnegative().default(100),
  evalExamples: z.number().int().positive().max(2000).default(100),
  seed: SeedSchema.default(0),
  out: z.string().min(1).default('runs/reader'),
  exportDtype: ExportDtypeSchema.default('F32'),
});

export type ReaderSftConfig = z.output<typeof ReaderSftConfigSchema>;

export function parseReaderSftConfig(input: unknown): ReaderSftConfig {
  const parsed = ReaderSftConfigSchema.safeParse(input);
  if (!parsed.success) throw new TrainingError('INVALID_CONFIG', z.prettifyError(parsed.error), { trainer: 'SFT' });
  return parsed.data;
}

const configError = (message: string) => new TrainingError('INVALID_CONFIG', message, { trainer: 'SFT' });

/**
 * The reader SFT config of a file when it is one (`"kind": "reader"`), else null (an LM SFT config), with the
 * `key=value` overrides applied as dotted paths into `ReaderSftConfigSchema` (`fathom sft --set`).
 */
export async function loadReaderSftConfig(
  file: string,
  overrides: readonly string[] = [],
): Promise<ReaderSftConfig | null> {
  const raw = await readJsonObject(file, configError);
  if (raw.kind !== 'reader') return null;
  return parseReaderSftConfig(withOverrides(file, ReaderSftConfigSchema, raw, overrides, configError));
}

/** One reader SFT step, as written to metrics.jsonl. */
export interface ReaderStepRecord {
  kind: 'train';
  step: number;
  stage: number;
  /** Mean −log p(gold span) per example of the batch, before the update. */
  loss: number;
  lr: number;
  grad_norm: number;
  /** Examples whose gold is not a span of their chunk (a sum, a count): skipped. */
  skipped: number;
  step_ms: number;
}

/** Greedy reads of eval-split examples, as written to metrics.jsonl. */
export interface ReaderEvalRecord {
  kind: 'eval';
  step: number;
  accuracy: number;
  examples: number;
}

export interface ReaderSftObserver {
  onStart?(info: { steps: number; stages: number }): void;
  onStep?(record: ReaderStepRecord): void;
  onEval?(record: ReaderEvalRecord): void;
}

/** One training example: the read as the span graphs take it, and its gold span. */
type SpanExample = SpanReadInput & { start: number; end: number };

/**
 * The example as a span target, or null when its gold is not a span of its chunk within the span cap. With `noise`,
 * each chunk word outside the question has its tokens replaced by random ordinary tokens with that probability.
 */
function toSpanExample(
  example: ReaderExample,
  tokenizer: Tokenizer,
  heads: ReaderHeads,
  noise: { share: number; rng: Rng },
): SpanExample | null {
  const input = encodeReadInput(example.question, example.chunk, tokenizer, heads);
  const gold = goldSpan(input, example.chunk, example.answer, example.distractors);
  if (gold === null || (gold.start !== input.none && gold.end - gold.start >= heads.maxSpanTokens)) return null;
  return { ...wordNoise(input, tokenizer, noise), ...gold };
}

/**
 * The read of `input` with word dropout: each chunk word outside the question (`match` 0) has its ids replaced by
 * random ordinary (non-special) token ids with probability `share`; its word features and word vector, the question
 * and the prompt are kept.
 */
export function wordNoise(
  input: ReadInput,
  tokenizer: Pick<Tokenizer, 'specialTokens' | 'vocabSize'>,
  noise: { share: number; rng: Rng },
): SpanReadInput {
  const ids = [...input.ids];
  if (noise.share > 0) {
    const ordinary = tokenizer.specialTokens.size;
    for (const word of input.words)
      if (input.match[word.tokStart] === 0 && noise.rng.chance(noise.share))
        for (let t = word.tokStart; t <= word.tokEnd; t++) ids[t] = noise.rng.int(ordinary, tokenizer.vocabSize - 1);
  }
  return { ...spanReadInput(input), ids };
}

function padIdOf(tokenizer: Tokenizer): number {
  return tokenizer.tokenId('<|pad|>') ?? tokenizer.tokenId('<|endoftext|>') ?? 0;
}

async function initialModel(config: ReaderSftConfig): Promise<Checkpoint> {
  const { checkpoint, hashedWordBuckets: buckets } = config.model;
  if (checkpoint !== undefined && buckets !== undefined)
    throw new TrainingError('INVALID_CONFIG', 'model.hashedWordBuckets: a checkpoint keeps its tokenizer', {
      trainer: 'SFT',
    });
  const model = checkpoint
    ? await loadCheckpoint(checkpoint)
    : await createDefaultModel(
        config.model.config ?? DEFAULT_CONFIG_PATH,
        config.model.initSeed,
        buckets === undefined ? undefined : new HashedWordTokenizer(buckets),
      );
  if (!model.config.reader?.spanHead)
    throw new TrainingError(
      'INVALID_CONFIG',
      'model: a reader needs a span head (a config.json with "fathom_reader")',
      { trainer: 'SFT' },
    );
  if (model.tokenizer === null) throw new TrainingError('INVALID_CONFIG', 'model: no tokenizer', { trainer: 'SFT' });
  return config.model.wordVectors === undefined
    ? model
    : withWordVectors(model, config.model.wordVectors, config.model.initSeed);
}

/** A fresh reader given a word-vector set: the frozen table and a freshly initialised projection. */
async function withWordVectors(model: Checkpoint, dir: string, seed: number): Promise<Checkpoint> {
  const { vectors, table } = await readWordVectorSet(dir);
  const config = { ...model.config, reader: { ...model.config.reader!, wordVectors: vectors } };
  const params = new Map(model.params);
  params.set(WORD_VECTORS, table);
  params.set(WORD_VECTOR_PROJ, initParams(config, seed).get(WORD_VECTOR_PROJ)!);
  return { ...model, config, params };
}

/**
 * Greedy accuracy of the span head on reader examples, graded by the reward's rule (`isCorrect`): the reads a leaf
 * `llm()` call would return.
 */
export async function readerAccuracy(
  graphs: ModelGraphs,
  model: Checkpoint,
  examples: readonly ReaderExample[],
  batchSize: number,
): Promise<number> {
  const tokenizer = model.tokenizer!;
  const maxSpan = model.config.reader!.maxSpanTokens;
  let correct = 0;
  for (let i = 0; i < examples.length; i += batchSize) {
    const group = examples.slice(i, i + batchSize);
    const inputs = group.map((e) => encodeReadInput(e.question, e.chunk, tokenizer, model.config.reader));
    const reads = inputs.map(spanReadInput);
    const rows = packSpanReads(reads, padIdOf(tokenizer), 64);
    const logits = await graphs.spanLogits(model.params, rows);
    group.forEach((example, b) => {
      const row = (a: Float32Array) => a.subarray(b * rows.length, (b + 1) * rows.length);
      const candidates = { ...reads[b], maxSpanTokens: maxSpan };
      const choice = chooseSpan(row(logits.start), row(logits.end), candidates, { temperature: 0 });
      const read = spanText(inputs[b], example.chunk, choice.start, choice.end);
      if (isCorrect(read, { question: example.question, answer: example.answer, aliases: [], context_tokens: 0 }))
        correct++;
    });
  }
  return examples.length === 0 ? 0 : correct / examples.length;
}

/**
 * Trains a reader's span head and backbone: for each stage, `steps` AdamW updates on batches of `batchSize` reader
 * examples of the train split (seeded per stage), minimising −log p(start) − log p(end | start) of the gold span with
 * the decoding's own candidates (word edges of the chunk, spans up to `maxSpanTokens`, the no-answer position).
 * Writes metrics.jsonl and `<out>/final` (the checkpoint with its heads). Examples whose gold is not a span of their
 * chunk are skipped and counted.
 */
export async function runReaderSft(
  config: ReaderSftConfig,
  observer: ReaderSftObserver = {},
): Promise<{ finalDir: string; last: ReaderStepRecord | null; lastEval: ReaderEvalRecord | null }> {
  const model = await initialModel(config);
  const tokenizer = model.tokenizer!;
  const heads = model.config.reader!;
  const graphs = new ModelGraphs(model.config, { kind: 'full' }, { specializeShapes: false });
  const steps = config.stages.reduce((n, s) => n + s.steps, 0);
  const optimizer = createAdamW(model.params, graphs.trainableSpecs, config.optimizer, steps);
  const metrics = await MetricsLog.create(join(config.out, 'metrics.jsonl'));
  const { steps: _, wordNoise: __, ...lastShares } = config.stages.at(-1)!;
  const evalSet = [
    ...generateReaderExamples({ ...lastShares, split: 'eval', n: config.evalExamples, seed: config.seed }),
  ];
  observer.onStart?.({ steps, stages: config.stages.length });
  let last: ReaderStepRecord | null = null;
  let lastEval: ReaderEvalRecord | null = null;
  let step = 0;
  try {
    for (const [stage, { steps: stageSteps, wordNoise, ...shares }] of config.stages.entries()) {
      const split: Split = 'train';
      const noise = { share: wordNoise, rng: new Rng(deriveSeed('reader-word-noise', config.seed, stage)) };
      const stream = generateReaderExamples({
        ...shares,
        split,
        n: Number.MAX_SAFE_INTEGER,
        seed: config.seed * 1000 + stage,
      });
      for (let k = 0; k < stageSteps; k++) {
        step++;
        const started = performance.now();
        const batch: SpanExample[] = [];
        let skipped = 0;
        while (batch.length < config.batchSize) {
          const example = toSpanExample(stream.next().value as ReaderExample, tokenizer, heads, noise);
          if (example === null) skipped++;
          else batch.push(example);
        }
        const rows = spanTrainBatch(batch, {
          padId: padIdOf(tokenizer),
          padMultiple: config.padMultiple,
          maxSpanTokens: heads.maxSpanTokens,
        });
        const result = await graphs.spanTrainStep(
          model.params,
          rows,
          new Float32Array(rows.batch).fill(-1 / rows.batch),
        );
        if (!Number.isFinite(result.loss))
          throw new TrainingError('DIVERGED', `step ${step}: loss ${result.loss}`, { trainer: 'SFT', step });
        const info = optimizer.update(Object.fromEntries(result.grads));
        last = {
          kind: 'train',
          step,
          stage,
          loss: result.loss,
          lr: info.lr,
          grad_norm: info.gradNorm,
          skipped,
          step_ms: performance.now() - started,
        };
        await metrics.write(last);
        observer.onStep?.(last);
        if (step === steps || (config.evalEvery > 0 && step % config.evalEvery === 0)) {
          const accuracy = await readerAccuracy(graphs, model, evalSet, config.batchSize);
          lastEval = { kind: 'eval', step, accuracy, examples: evalSet.length };
          await metrics.write(lastEval);
          observer.onEval?.(lastEval);
        }
      }
    }
  } finally {
    await graphs.release();
  }
  const finalDir = join(config.out, 'final');
  await saveCheckpoint(finalDir, model, config.exportDtype);
  return { finalDir, last, lastEval };
}
