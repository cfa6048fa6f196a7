import { Rng } from '@fathom/contracts';
import { ModelError } from './errors';
import { MASKED_LOGIT, type ModelGraphs, type SpanBatch, type SpanTargets } from './graph/model.graphs';
import type { ReaderHeads } from './config';
import type { ParamMap } from './params';
import type { Tokenizer } from './tokenizer/tokenizer';
import { wordVectorIndex } from './word-vectors';

/** Where a read of one prompt may put its span: positions of the prompt's ids. */
export interface SpanCandidates {
  /** Positions where a span may start: the first token of each word of the chunk. */
  starts: readonly number[];
  /** Positions where a span may end: the last token of each word of the chunk. */
  ends: readonly number[];
  /** The no-answer position (the prompt's last): a span that starts there ends there and reads "unknown". */
  none: number;
  /** The longest span in tokens (`ReaderHeads.maxSpanTokens`). */
  maxSpanTokens: number;
}

/**
 * One read as the span graphs take it: the prompt's ids, its exact-match input, its word-feature, word-tag and
 * word-vector inputs (absent: all 0), where a span may start and end.
 */
export interface SpanReadInput {
  ids: readonly number[];
  match: readonly number[];
  feature?: readonly number[];
  tag?: readonly number[];
  vector?: readonly number[];
  starts: readonly number[];
  ends: readonly number[];
  none: number;
}

/** Reads right-padded with `padId` to one length, the longest rounded up to a multiple of `padMultiple`. */
export function packSpanReads(reads: readonly SpanReadInput[], padId: number, padMultiple = 1): SpanBatch {
  const longest = Math.max(...reads.map((r) => r.ids.length));
  const length = Math.ceil(longest / padMultiple) * padMultiple;
  const ids = new Array<number>(reads.length * length).fill(padId);
  const match = new Float32Array(reads.length * length);
  const feature = new Array<number>(reads.length * length).fill(0);
  const tag = new Array<number>(reads.length * length).fill(0);
  const vector = new Array<number>(reads.length * length).fill(0);
  reads.forEach((read, b) => {
    read.ids.forEach((id, t) => (ids[b * length + t] = id));
    read.match.forEach((m, t) => (match[b * length + t] = m));
    read.feature?.forEach((f, t) => (feature[b * length + t] = f));
    read.tag?.forEach((v, t) => (tag[b * length + t] = v));
    read.vector?.forEach((v, t) => (vector[b * length + t] = v));
  });
  return { batch: reads.length, length, ids, match, feature, tag, vector };
}

/**
 * Reads with the span each one chose (or was taught) as a batch for `ModelGraphs.spanTrainStep`: packed as
 * `packSpanReads` does, each row's biases those of its own candidates (`spanBiases`). Padding is never a candidate.
 */
export function spanTrainBatch(
  reads: readonly (SpanReadInput & { start: number; end: number })[],
  options: { padId: number; padMultiple?: number; maxSpanTokens: number },
): SpanBatch & SpanTargets {
  const packed = packSpanReads(reads, options.padId, options.padMultiple);
  const { length } = packed;
  const startBias = new Float32Array(reads.length * length);
  const endBias = new Float32Array(reads.length * length);
  reads.forEach((read, b) => {
    const bias = spanBiases({ ...read, maxSpanTokens: options.maxSpanTokens }, length, read.start);
    startBias.set(bias.startBias, b * length);
    endBias.set(bias.endBias, b * length);
  });
  return { ...packed, startBias, endBias, start: reads.map((r) => r.start), end: reads.map((r) => r.end) };
}

/** One read: the span chosen (start = end = `none` for no answer), and its log-probability under the head. */
export interface SpanChoice {
  start: number;
  /** Inclusive. */
  end: number;
  /** log p(start) + log p(end | start) under the distributions it was chosen from (at the read's temperature). */
  logprob: number;
  /** False when the read chose the no-answer position. */
  answered: boolean;
}

/** The positions a span that starts at `start` may end at: the word ends within `maxSpanTokens`, or only `none`. */
export function allowedEnds(c: SpanCandidates, start: number): number[] {
  if (start === c.none) return [c.none];
  return c.ends.filter((e) => e >= start && e < start + c.maxSpanTokens);
}

/**
 * The additive biases of one row (`SpanTargets` of the span graphs): 0 where a span may start, and where a span that
 * starts at `start` may end; `MASKED_LOGIT` elsewhere. `length` is the row's padded length.
 */
export function spanBiases(c: SpanCandidates, length: number, start: number) {
  const startBias = new Float32Array(length).fill(MASKED_LOGIT);
  const endBias = new Float32Array(length).fill(MASKED_LOGIT);
  for (const s of [...c.starts, c.none]) startBias[s] = 0;
  for (const e of allowedEnds(c, start)) endBias[e] = 0;
  return { startBias, endBias };
}

function logSoftmaxAt(logits: ArrayLike<number>, positions: readonly number[], scale: number): Map<number, number> {
  let max = -Infinity;
  for (const p of positions) max = Math.max(max, logits[p] * scale);
  let sum = 0;
  for (const p of positions) sum += Math.exp(logits[p] * scale - max);
  const lse = max + Math.log(sum);
  return new Map(positions.map((p) => [p, logits[p] * scale - lse]));
}

function draw(logprobs: Map<number, number>, rng: Rng): number {
  let u = rng.float();
  let last = -1;
  for (const [p, lp] of logprobs) {
    last = p;
    u -= Math.exp(lp);
    if (u <= 0) return p;
  }
  return last;
}

/**
 * Chooses a span from one row's start and end logits. Greedy (temperature 0): the (start, end) pair with the highest
 * log p(start) + log p(end | start); sampled: a start from its categorical, then an end from the categorical over the
 * ends allowed after it (`allowedEnds`), both at `temperature`, drawn with a PRNG seeded by `seed`.
 */
export function chooseSpan(
  startLogits: ArrayLike<number>,
  endLogits: ArrayLike<number>,
  c: SpanCandidates,
  options: { temperature: number; seed?: number },
): SpanChoice {
  const starts = [...c.starts.filter((s) => allowedEnds(c, s).length > 0), c.none];
  if (!(options.temperature >= 0)) throw new ModelError('INVALID_ARGUMENT', `temperature ${options.temperature}`);
  const scale = options.temperature === 0 ? 1 : 1 / options.temperature;
  const startLp = logSoftmaxAt(startLogits, starts, scale);
  const endLpOf = (s: number) => logSoftmaxAt(endLogits, allowedEnds(c, s), scale);
  const choice = (start: number, end: number, logprob: number): SpanChoice => ({
    start,
    end,
    logprob,
    answered: start !== c.none,
  });
  if (options.temperature > 0) {
    const rng = new Rng(options.seed ?? 0);
    const start = draw(startLp, rng);
    const ends = endLpOf(start);
    const end = draw(ends, rng);
    return choice(start, end, startLp.get(start)! + ends.get(end)!);
  }
  let best = choice(c.none, c.none, startLp.get(c.none)!);
  for (const s of starts) {
    if (s === c.none) continue;
    for (const [e, lp] of endLpOf(s)) {
      const total = startLp.get(s)! + lp;
      if (total > best.logprob) best = choice(s, e, total);
    }
  }
  return best;
}

/**
 * Leaf reads by a model's span head: one forward pass over the prompt with its exact-match input, then a span chosen
 * from the start and end logits (`chooseSpan`). Holds the weights it was given (a policy version's); `release()` frees
 * its sessions.
 */
export class SpanReader {
  readonly maxSpanTokens: number;
  /** Its reading heads: which inputs its reads are encoded with (the reader trainer encodes with the same). */
  readonly heads: ReaderHeads;

  constructor(
    private readonly graphs: ModelGraphs,
    private readonly weights: ParamMap,
    /** The reader's own tokenizer: its prompts are encoded with it, whatever the root's. */
    readonly tokenizer: Tokenizer,
  ) {
    const heads = graphs.config.reader;
    if (!heads?.spanHead)
      throw new ModelError('INVALID_CONFIG', 'a span reader needs a model with a span head (fathom_reader)');
    if (heads.wordVectors) wordVectorIndex(heads.wordVectors); // fail when built, not at the first read
    this.maxSpanTokens = heads.maxSpanTokens;
    this.heads = heads;
  }

  /** The longest prompt it reads. */
  get maxLength(): number {
    return this.graphs.config.maxPositions;
  }

  async read(input: SpanReadInput, options: { temperature: number; seed?: number }): Promise<SpanChoice> {
    const length = input.ids.length;
    if (input.match.length !== length)
      throw new ModelError('INVALID_ARGUMENT', `match has ${input.match.length} entries for ${length} ids`);
    const logits = await this.graphs.spanLogits(this.weights, packSpanReads([input], 0));
    const candidates = { starts: input.starts, ends: input.ends, none: input.none, maxSpanTokens: this.maxSpanTokens };
    return chooseSpan(logits.start, logits.end, candidates, options);
  }

  async release(): Promise<void> {
    await this.graphs.release();
  }
}
