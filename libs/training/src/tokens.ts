import type { SpanSpec } from '@fathom/contracts';
import { MASKED_LOGIT, SpanConstraint, type TokenBatch, type Tokenizer } from '@fathom/model';
import type { Segment } from '@fathom/rlm';
import { TrainingError } from './errors';

/**
 * Token ids and, per id, whether the loss is taken on it (1: the model's own token, 0: prompt, observation or
 * header). Shape-compatible with a rollout's `TokenSequence` (`@fathom/contracts`), so SFT and GRPO batch alike.
 */
export interface MaskedSequence {
  ids: readonly number[];
  mask: readonly number[];
  /** The span constraint the model tokens were decoded under (an extractive read): they are scored under it. */
  span?: SpanSpec;
}

/**
 * Encodes a rendered conversation segment by segment, so every id belongs to exactly one segment and its mask is
 * exactly that segment's `trained` flag (encoding the joined text could merge tokens across a boundary). Special
 * tokens (`<|im_start|>`, `<|im_end|>`) inside a segment become their ids. No BOS or other ids are added.
 */
export function encodeConversation(segments: readonly Segment[], tokenizer: Tokenizer): MaskedSequence {
  const ids: number[] = [];
  const mask: number[] = [];
  for (const segment of segments) {
    for (const id of tokenizer.encode(segment.text)) {
      ids.push(id);
      mask.push(segment.trained ? 1 : 0);
    }
  }
  return { ids, mask };
}

/** Number of ids whose mask is 1. */
export function trainedCount(sequence: MaskedSequence): number {
  let n = 0;
  for (const m of sequence.mask) n += m;
  return n;
}

export interface PackOptions {
  /** The id written into padding positions (never trained on; any valid id works). */
  padId: number;
  /** Pad each batch's length up to a multiple of this, so few distinct shapes reach the graph runtime. */
  padMultiple: number;
  /** The longest input row allowed (the caller drops longer sequences beforehand; a longer one throws). */
  maxLength: number;
  /** The model's vocabulary size: needed for the logit bias of sequences with a `span`. */
  vocabSize?: number;
}

/** A graph-ready batch and the loss mask aligned with its targets. */
export interface PackedBatch {
  /** ids (B, T) and targets (B, T): row b predicts ids[b][t + 1] at position t. */
  batch: TokenBatch;
  /** (B, T): 1 where the target is a trained token of its sequence, 0 on prompt tokens and padding. */
  targetMask: Float32Array;
  /** Input positions of each row before padding (its sequence length − 1). */
  rowLengths: number[];
  /** Σ rowLengths: the positions that hold real tokens. */
  tokens: number;
  /** Σ targetMask: the positions the loss is taken on. */
  trainedTokens: number;
}

/**
 * Packs sequences into one right-padded batch for next-token prediction. A sequence of n ids gives n − 1 input
 * positions; position t reads ids[t], predicts ids[t + 1], and is trained on when mask[t + 1] is 1 (the mask
 * belongs to the predicted token). Every row is padded with `padId` to the same length T = the longest row rounded
 * up to a multiple of `padMultiple`, capped at `maxLength`. Causal attention means right padding never changes
 * the log-probs of real positions, and padded positions carry mask 0. When a sequence has a `span`, the batch gets
 * a logit bias (`TokenBatch.logitBias`) that masks, at the position before each model token, every token the
 * replayed constraint did not allow there, so the graphs score those tokens as they were sampled.
 */
export function packBatch(sequences: readonly MaskedSequence[], options: PackOptions): PackedBatch {
  if (sequences.length === 0) throw new TrainingError('INVALID_SEQUENCE', 'an empty batch');
  const rowLengths = sequences.map((s, i) => {
    if (s.mask.length !== s.ids.length)
      throw new TrainingError(
        'INVALID_SEQUENCE',
        `row ${i}: mask has ${s.mask.length} entries for ${s.ids.length} ids`,
      );
    if (s.ids.length < 2) throw new TrainingError('INVALID_SEQUENCE', `row ${i}: ${s.ids.length} ids predict nothing`);
    return s.ids.length - 1;
  });
  const longest = Math.max(...rowLengths);
  if (longest > options.maxLength)
    throw new TrainingError(
      'INVALID_SEQUENCE',
      `a row of ${longest} positions exceeds the maximum length ${options.maxLength}`,
    );
  const length = Math.min(options.maxLength, Math.ceil(longest / options.padMultiple) * options.padMultiple);
  const rows = sequences.length;
  const ids = new Array<number>(rows * length).fill(options.padId); // (B, T)
  const targets = new Array<number>(rows * length).fill(options.padId); // (B, T)
  const targetMask = new Float32Array(rows * length); // (B, T)
  let trainedTokens = 0;
  sequences.forEach((s, b) => {
    for (let t = 0; t < rowLengths[b]; t++) {
      const at = b * length + t;
      ids[at] = s.ids[t];
      targets[at] = s.ids[t + 1];
      const m = s.mask[t + 1];
      if (m !== 0 && m !== 1)
        throw new TrainingError('INVALID_SEQUENCE', `row ${b}: mask[${t + 1}] is ${m}, not 0 or 1`);
      targetMask[at] = m;
      trainedTokens += m;
    }
  });
  const logitBias = spanBias(sequences, length, options.vocabSize);
  return {
    batch: { batch: rows, length, ids, targets, ...(logitBias === null ? {} : { logitBias }) },
    targetMask,
    rowLengths,
    tokens: rowLengths.reduce((a, b) => a + b, 0),
    trainedTokens,
  };
}

/** The (B, T, V) logit bias of the sequences with a span constraint; null when none has one. */
function spanBias(sequences: readonly MaskedSequence[], length: number, vocabSize?: number): Float32Array | null {
  if (sequences.every((s) => s.span === undefined)) return null;
  if (vocabSize === undefined)
    throw new TrainingError('INVALID_SEQUENCE', 'a sequence with a span needs the vocabulary size');
  const bias = new Float32Array(sequences.length * length * vocabSize);
  sequences.forEach((s, b) => {
    if (s.span === undefined) return;
    const at = s.mask.flatMap((m, i) => (m === 1 ? [i] : []));
    if (at[0] === 0) throw new TrainingError('INVALID_SEQUENCE', `row ${b}: a span sequence starts with a model token`);
    let allowed: Set<number>[];
    try {
      allowed = SpanConstraint.replay(
        s.span,
        at.map((i) => s.ids[i]),
      );
    } catch (error) {
      throw new TrainingError('INVALID_SEQUENCE', `row ${b}: ${(error as Error).message}`);
    }
    at.forEach((i, k) => {
      const row = bias.subarray((b * length + i - 1) * vocabSize, (b * length + i) * vocabSize);
      row.fill(MASKED_LOGIT);
      for (const token of allowed[k]) if (token < vocabSize) row[token] = 0;
    });
  });
  return bias;
}

/**
 * SFT token weights for `ModelGraphs.trainStep`: w = −mask / (trained tokens in the batch), so the step's loss
 * Σ w·logp is the mean negative log-likelihood per trained token (token-level mean over the whole batch).
 */
export function sftTokenWeights(packed: PackedBatch): Float32Array {
  if (packed.trainedTokens === 0) throw new TrainingError('INVALID_SEQUENCE', 'the batch has no trained tokens');
  const scale = -1 / packed.trainedTokens;
  return packed.targetMask.map((m) => (m === 0 ? 0 : m * scale));
}
