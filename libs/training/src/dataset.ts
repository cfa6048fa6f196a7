import { createHash } from 'node:crypto';
import { Rng } from '@fathom/contracts';
import { SpanConstraint, type Tokenizer } from '@fathom/model';
import { extractiveSpan, IM_END } from '@fathom/rlm';
import type { Conversation } from './data.source';
import { TrainingError } from './errors';
import { permutation, streamSeed } from './sampler';
import { encodeConversation, trainedCount, type MaskedSequence } from './tokens';

/** A conversation as ids and mask, ready to batch. */
export interface TokenizedExample extends MaskedSequence {
  id: string;
  taskId: string;
  kind: Conversation['kind'];
}

/** What tokenising kept and dropped (reported at start, written to data.json). */
export interface TokenizeReport {
  conversations: number;
  kept: number;
  /** Longer than seqLen tokens: dropped whole, never truncated mid-answer. */
  droppedTooLong: number;
  /** No trained token at all (nothing to learn from). */
  droppedNoTrainedTokens: number;
  /** With `extractive`: leaf reads whose answer is not a whole-word span of their chunk (nor "unknown"). */
  droppedNotExtractive: number;
  /** With `extractive`: leaf reads kept, each scored under its span constraint. */
  extractive: number;
  /** Ids of the first few dropped conversations, for a look. */
  droppedExamples: string[];
  /** The longest conversation seen, in tokens, kept or not. */
  longestTokens: number;
}

const DROPPED_SHOWN = 10;

/**
 * Encodes each conversation segment by segment; drops (and counts) those over `seqLen` tokens or with no trained
 * token. With `extractive`, a leaf read with a chunk carries the span constraint an extractive read of that chunk
 * is decoded under (`extractiveSpan`), so it is trained on the distribution it is sampled from; one whose answer
 * the constraint forbids is dropped and counted.
 */
export function tokenizeConversations(
  conversations: readonly Conversation[],
  tokenizer: Tokenizer,
  seqLen: number,
  options: { extractive?: boolean } = {},
): { examples: TokenizedExample[]; report: TokenizeReport } {
  const examples: TokenizedExample[] = [];
  const report: TokenizeReport = {
    conversations: conversations.length,
    kept: 0,
    droppedTooLong: 0,
    droppedNoTrainedTokens: 0,
    droppedNotExtractive: 0,
    extractive: 0,
    droppedExamples: [],
    longestTokens: 0,
  };
  // The stop token of an extractive read; set exactly when reads are trained extractively.
  const imEnd = options.extractive ? tokenizer.tokenId(IM_END) : undefined;
  if (options.extractive && imEnd === undefined)
    throw new TrainingError('INVALID_CONFIG', `extractive reads need the tokenizer's ${IM_END}`, { trainer: 'SFT' });
  const drop = (id: string, why: string) => {
    if (report.droppedExamples.length < DROPPED_SHOWN) report.droppedExamples.push(`${id} (${why})`);
  };
  for (const c of conversations) {
    const seq = encodeConversation(c.segments, tokenizer);
    report.longestTokens = Math.max(report.longestTokens, seq.ids.length);
    const tooLong = seq.ids.length > seqLen;
    if (tooLong || trainedCount(seq) === 0) {
      if (tooLong) report.droppedTooLong++;
      else report.droppedNoTrainedTokens++;
      drop(c.id, tooLong ? `${seq.ids.length} tokens` : 'no trained tokens');
      continue;
    }
    const span =
      imEnd !== undefined && c.kind === 'subcall' && c.chunk !== undefined
        ? extractiveSpan(c.chunk, tokenizer, [imEnd])
        : undefined;
    if (span !== undefined) {
      try {
        SpanConstraint.replay(
          span,
          seq.ids.filter((_, i) => seq.mask[i] === 1),
        );
      } catch {
        report.droppedNotExtractive++;
        drop(c.id, 'answer is not a span of its chunk');
        continue;
      }
      report.extractive++;
    }
    examples.push({ id: c.id, taskId: c.taskId, kind: c.kind, ...seq, ...(span === undefined ? {} : { span }) });
  }
  report.kept = examples.length;
  return { examples, report };
}

/**
 * Holds out round(fraction × tasks) tasks — chosen by a seeded shuffle of the sorted task ids — with all their
 * examples, so no held-out task is seen in training. At least one task stays in training; with a positive
 * fraction and two or more tasks, at least one is held out.
 */
export function splitHeldOut<T extends { taskId: string }>(
  examples: readonly T[],
  fraction: number,
  seed: number,
): { train: T[]; heldOut: T[] } {
  const tasks = [...new Set(examples.map((e) => e.taskId))].sort();
  let n = Math.round(fraction * tasks.length);
  if (fraction > 0 && tasks.length >= 2) n = Math.max(1, n);
  n = Math.min(n, tasks.length - 1);
  const order = permutation(tasks.length, new Rng(streamSeed(seed, -1)));
  const held = new Set(order.slice(0, Math.max(0, n)).map((i) => tasks[i]));
  return {
    train: examples.filter((e) => !held.has(e.taskId)),
    heldOut: examples.filter((e) => held.has(e.taskId)),
  };
}

/** A hash of the examples' ids, masks and order: a resume checks it so it never continues on different data. */
export function dataFingerprint(examples: readonly TokenizedExample[]): string {
  const hash = createHash('sha256');
  for (const e of examples) {
    hash.update(e.id);
    hash.update(Int32Array.from(e.ids));
    hash.update(Uint8Array.from(e.mask));
  }
  return hash.digest('hex');
}
