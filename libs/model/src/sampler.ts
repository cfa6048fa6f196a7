import type { DecodeBackend } from './decode';
import { ModelError, ModelErrorCode } from './errors';
import { Rng } from '@fathom/contracts';
import { SpanConstraint } from './span';
import type { Tokenizer } from './tokenizer/tokenizer';

export interface SamplingOptions {
  /** Completions of the prompt, sharing its one prefill. Default 1. */
  n?: number;
  /** Maximum generated tokens per completion. */
  maxNewTokens: number;
  /** Softmax temperature; 0 means greedy. Default 1. */
  temperature?: number;
  /** Keep only the k most likely tokens (0 = off). Default 0. */
  topK?: number;
  /** Keep the smallest most-likely set whose probability reaches p (1 = off). Default 1. */
  topP?: number;
  /** Token ids that end a completion; the stop token is kept as its last token. */
  stopTokens?: readonly number[];
  /** Strings that end a completion once its decoded text contains one; needs a tokenizer. */
  stopStrings?: readonly string[];
  /** PRNG seed; the same seed, prompt, options and weights give the same completions. Default 0. */
  seed?: number;
  /**
   * Extractive decoding (`SpanConstraint`): each completion is a non-empty run of consecutive tokens of one of these
   * sequences, then a stop token; logprobs are under the constrained, renormalised distribution.
   */
  spanOf?: readonly (readonly number[])[];
  /** With spanOf: the ids that are part of a word; a span then starts and ends only at word edges. */
  spanWordTokens?: readonly number[];
}

export type FinishReason = 'stop_token' | 'stop_string' | 'length';

export interface Completion {
  tokens: number[];
  /**
   * Log-probability of each sampled token under the distribution it was drawn from (after temperature, top-k
   * and top-p, renormalised); with temperature 1 and no truncation this is the model's own log-softmax. Greedy
   * picks have log-probability 0.
   */
  logprobs: number[];
  finishReason: FinishReason;
  /** Decoded completion, when a tokenizer was given. */
  text?: string;
}

interface Resolved {
  temperature: number;
  topK: number;
  topP: number;
}

/**
 * Draws one token from `logits` (vocab) and returns it with its log-probability under the distribution used.
 * Works in float64 whatever the logits' precision.
 */
export function sampleToken(logits: ArrayLike<number>, opts: Resolved, rng: Rng): { token: number; logprob: number } {
  const v = logits.length;
  if (opts.temperature === 0) {
    let best = 0;
    for (let i = 1; i < v; i++) if (logits[i] > logits[best]) best = i;
    return { token: best, logprob: 0 };
  }
  let candidates: number[] | null = null;
  const z = new Float64Array(v);
  for (let i = 0; i < v; i++) z[i] = logits[i] / opts.temperature;
  if ((opts.topK > 0 && opts.topK < v) || opts.topP < 1) {
    const order = Array.from({ length: v }, (_, i) => i).sort((a, b) => z[b] - z[a] || a - b);
    candidates = opts.topK > 0 && opts.topK < v ? order.slice(0, opts.topK) : order;
    if (opts.topP < 1) {
      const max = z[candidates[0]];
      let total = 0;
      for (const i of candidates) total += Math.exp(z[i] - max);
      let cumulative = 0;
      let keep = 0;
      while (keep < candidates.length && cumulative < opts.topP * total)
        cumulative += Math.exp(z[candidates[keep++]] - max);
      candidates = candidates.slice(0, Math.max(1, keep));
    }
  }
  const ids = candidates ?? null;
  const count = ids ? ids.length : v;
  const at = (j: number) => (ids ? ids[j] : j);
  let max = -Infinity;
  for (let j = 0; j < count; j++) max = Math.max(max, z[at(j)]);
  let total = 0;
  for (let j = 0; j < count; j++) total += Math.exp(z[at(j)] - max);
  const logTotal = max + Math.log(total);
  let u = rng.float() * total;
  let chosen = at(count - 1);
  for (let j = 0; j < count; j++) {
    u -= Math.exp(z[at(j)] - max);
    if (u < 0) {
      chosen = at(j);
      break;
    }
  }
  return { token: chosen, logprob: z[chosen] - logTotal };
}

/** One `SpanConstraint` per completion, after checking that the sources hold a span of valid token ids. */
function spanConstraints(
  sources: readonly (readonly number[])[],
  n: number,
  stopTokens: ReadonlySet<number>,
  vocab: number,
  wordTokens: readonly number[] | undefined,
): SpanConstraint[] {
  if (!sources.some((source) => source.length > 0))
    throw new ModelError(ModelErrorCode.InvalidArgument, 'spanOf holds no token to copy: every source is empty');
  for (const source of sources)
    for (const id of source)
      if (!Number.isInteger(id) || id < 0 || id >= vocab)
        throw new ModelError(
          ModelErrorCode.InvalidArgument,
          `spanOf token id ${id} is outside the vocabulary of ${vocab}`,
        );
  const words = wordTokens === undefined ? undefined : new Set(wordTokens);
  return Array.from({ length: n }, () => new SpanConstraint(sources, stopTokens, words));
}

/**
 * Samples `options.n` completions of one prompt. The prompt is prefilled once and its cache shared by all
 * completions; every step extends all unfinished completions together (finished rows are fed their last
 * token and ignored). Deterministic in `options.seed`.
 */
export async function generate(
  backend: DecodeBackend,
  prompt: readonly number[],
  options: SamplingOptions,
  tokenizer?: Tokenizer,
): Promise<Completion[]> {
  const n = options.n ?? 1;
  const resolved: Resolved = {
    temperature: options.temperature ?? 1,
    topK: options.topK ?? 0,
    topP: options.topP ?? 1,
  };
  const stopStrings = options.stopStrings ?? [];
  if (!Number.isInteger(n) || n < 1)
    throw new ModelError(ModelErrorCode.InvalidArgument, `n must be a positive integer, got ${n}`);
  if (prompt.length === 0) throw new ModelError(ModelErrorCode.InvalidArgument, 'prompt is empty');
  if (resolved.temperature < 0 || !(resolved.topP > 0 && resolved.topP <= 1) || resolved.topK < 0) {
    throw new ModelError(
      ModelErrorCode.InvalidArgument,
      `temperature ${resolved.temperature}, topP ${resolved.topP}, topK ${resolved.topK}`,
    );
  }
  if (stopStrings.length && !tokenizer)
    throw new ModelError(ModelErrorCode.InvalidArgument, 'stopStrings need a tokenizer');
  const room = backend.maxLength - prompt.length;
  if (room < 1)
    throw new ModelError(
      ModelErrorCode.InvalidArgument,
      `prompt of ${prompt.length} tokens fills the context of ${backend.maxLength}`,
    );
  const steps = Math.min(options.maxNewTokens, room);
  const stopTokens = new Set(options.stopTokens ?? []);
  // A stop string of c characters spans at most 4c + 1 byte-level tokens, so the tail decode is enough.
  const tail = 4 * Math.max(0, ...stopStrings.map((s) => s.length)) + 4;
  if (options.spanWordTokens !== undefined && options.spanOf === undefined)
    throw new ModelError(ModelErrorCode.InvalidArgument, 'spanWordTokens needs spanOf');
  const spans =
    options.spanOf === undefined
      ? null
      : spanConstraints(options.spanOf, n, stopTokens, backend.vocabSize, options.spanWordTokens);
  const rng = new Rng(options.seed ?? 0);
  const out: Completion[] = Array.from({ length: n }, () => ({ tokens: [], logprobs: [], finishReason: 'length' }));
  const done = new Array<boolean>(n).fill(false);

  const { session, logits: first } = await backend.start(prompt, n);
  try {
    const vocab = backend.vocabSize;
    let logits = first;
    let shared = true;
    for (let step = 0; step < steps; step++) {
      for (let r = 0; r < n; r++) {
        if (done[r]) continue;
        let row: ArrayLike<number> = shared ? logits : logits.subarray(r * vocab, (r + 1) * vocab);
        if (spans !== null) {
          const allowed = spans[r].allowed();
          // Every matching span reached its source's end and no stop token is set: the completion is whole.
          if (allowed.size === 0) {
            done[r] = true;
            continue;
          }
          row = SpanConstraint.mask(row, allowed);
        }
        const { token, logprob } = sampleToken(row, resolved, rng);
        const c = out[r];
        c.tokens.push(token);
        c.logprobs.push(logprob);
        spans?.[r].advance(token);
        if (stopTokens.has(token)) {
          c.finishReason = 'stop_token';
          done[r] = true;
        } else if (stopStrings.length && tokenizer) {
          const text = tokenizer.decode(c.tokens.slice(-tail));
          if (stopStrings.some((s) => text.includes(s))) {
            c.finishReason = 'stop_string';
            done[r] = true;
          }
        }
      }
      if (done.every(Boolean) || step === steps - 1) break;
      logits = await session.step(out.map((c) => c.tokens[c.tokens.length - 1]));
      shared = false;
    }
  } finally {
    session.close();
  }
  if (tokenizer) for (const c of out) c.text = tokenizer.decode(c.tokens);
  return out;
}
