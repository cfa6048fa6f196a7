import type { SpanSpec, TokenSequence } from '@fathom/contracts';
import type { Segment } from '../prompt';
import { SUBCALL_UNKNOWN } from '../teacher/oracle';
import type { PolicyTokenizer } from './policy';

/**
 * Turns rendered segments into ids, segment by segment so every id's mask is exact. A trained segment is the
 * model's own turn: its ids are the ones the policy sampled (`sampledTurns[k]` for the k-th trained segment),
 * never the turn's text re-encoded. Everything else is encoded. Log-probs of the sampled ids come along.
 */
export function encodeSegments(
  segments: readonly Segment[],
  sampledTurns: readonly { tokens: readonly number[]; logprobs: readonly number[] }[],
  tokenizer: PolicyTokenizer,
): TokenSequence {
  const out: TokenSequence = { ids: [], logprobs: [], mask: [] };
  let turn = 0;
  for (const segment of segments) {
    if (segment.trained) {
      const sampled = sampledTurns[turn++];
      if (sampled === undefined) throw new RangeError(`segment ${turn - 1} is trained but no sampled turn matches it`);
      for (let i = 0; i < sampled.tokens.length; i++) {
        out.ids.push(sampled.tokens[i]);
        out.logprobs.push(sampled.logprobs[i]);
        out.mask.push(1);
      }
    } else {
      for (const id of tokenizer.encode(segment.text)) {
        out.ids.push(id);
        out.logprobs.push(0);
        out.mask.push(0);
      }
    }
  }
  return out;
}

/** A prompt that does not extend the ids the policy was fed and sampled before: the trajectory fails with this. */
export class TokenMismatchError extends Error {
  override name = 'TokenMismatchError';
  constructor(
    readonly turn: number,
    readonly diff: string,
  ) {
    super(`the prompt of turn ${turn} does not extend the previous turn's ids exactly\n${diff}`);
  }
}

const WINDOW = 8;

/**
 * Where `next` stops extending `previous` (ids and mask): the first differing position, the ids around it on
 * both sides and their decoded text, or null when `next` starts with `previous`.
 */
export function prefixMismatch(
  previous: TokenSequence,
  next: TokenSequence,
  tokenizer: PolicyTokenizer,
): string | null {
  let at = 0;
  while (at < previous.ids.length && at < next.ids.length && previous.ids[at] === next.ids[at]) at++;
  if (at === previous.ids.length) {
    for (let i = 0; i < previous.mask.length; i++)
      if (previous.mask[i] !== next.mask[i])
        return `mask differs at position ${i} (was ${previous.mask[i]}, re-rendered ${next.mask[i]}) of ${previous.ids.length}`;
    return null;
  }
  const from = Math.max(0, at - WINDOW);
  const show = (ids: readonly number[]) => {
    const window = ids.slice(from, at + WINDOW);
    return `[${window.join(', ')}] ${JSON.stringify(tokenizer.decode(window))}`;
  };
  return [
    `first difference at position ${at} of ${previous.ids.length} (showing ids ${from}…${at + WINDOW - 1})`,
    `- fed/sampled: ${show(previous.ids)}`,
    `+ re-rendered: ${show(next.ids)}`,
  ].join('\n');
}

/**
 * The ids among `ids` that are part of a word: each decodes alone to letters and digits only (a byte of a multi-byte
 * character decodes to U+FFFD and counts as a letter). Extractive reads pass them as `spanWordTokens`.
 */
export function wordTokensOf(ids: readonly number[], tokenizer: PolicyTokenizer): number[] {
  return [...new Set(ids)].filter((id) => /^[\p{L}\p{N}\uFFFD]+$/u.test(tokenizer.decode([id])));
}

/**
 * The span constraint of an extractive read of `chunk` (`subcalls.extractive`): the answer is a run of the chunk's
 * tokens or "unknown", cut at word edges, then one of `stopTokens`. Rollouts decode leaf reads under it and SFT
 * (`data.extractiveReads`) scores reader answers under it, so both see the same renormalised distribution.
 */
export function extractiveSpan(chunk: string, tokenizer: PolicyTokenizer, stopTokens: readonly number[]): SpanSpec {
  const sources = [tokenizer.encode(chunk), tokenizer.encode(SUBCALL_UNKNOWN)];
  return { sources, stopTokens: [...stopTokens], wordTokens: wordTokensOf(sources.flat(), tokenizer) };
}
