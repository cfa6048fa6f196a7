import type { DecodeBackend } from './decode';
import { ModelError } from './errors';
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
  /** The prompt continues an earlier one: start from the backend's kept prefix of it (`DecodePrompt.reuse`). */
  reuse?: boolean;
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
    throw new ModelError('INVALID_ARGUMENT', 'spanOf holds no token to copy: every source is empty');
  for (const source of sources)
    for (const id of source)
      if (!Number.isInteger(id) || id < 0 || id >= vocab)
        throw new ModelError('INVALID_ARGUMENT', `spanOf token id ${id} is outside the vocabulary of ${vocab}`);
  const words = wordTokens === undefined ? undefined : new Set(wordTokens);
  return Array.from({ length: n }, () => new SpanConstraint(sources, stopTokens, words));
}

/** What `generateBatch` takes per prompt; the rest of `SamplingOptions` is shared by a batch. */
type RequestKey = 'n' | 'maxNewTokens' | 'seed' | 'spanOf' | 'spanWordTokens' | 'reuse';

/** One prompt of a `generateBatch` call, with its own completions count, length limit, seed and span constraint. */
export type GenerationRequest = Pick<SamplingOptions, RequestKey> & { prompt: readonly number[] };

/** The sampling settings every request of a `generateBatch` call shares. */
export type BatchSamplingOptions = Omit<SamplingOptions, RequestKey>;

/**
 * Samples `options.n` completions of one prompt: `generateBatch` with one request. The prompt is prefilled once
 * and its cache shared by all completions. Deterministic in `options.seed`.
 */
export async function generate(
  backend: DecodeBackend,
  prompt: readonly number[],
  options: SamplingOptions,
  tokenizer?: Tokenizer,
): Promise<Completion[]> {
  const [completions] = await generateBatch(backend, [{ ...options, prompt }], options, tokenizer);
  return completions;
}

/** One request's state in a batch. */
interface Running {
  completions: Completion[];
  /** Tokens each of its completions may sample. */
  steps: number;
  rng: Rng;
  spans: SpanConstraint[] | null;
}

/**
 * Samples `requests[i].n` completions of each prompt in one decode session: each prompt is prefilled once, and
 * every step extends every unfinished completion of every request together (rows of different lengths side by
 * side). Finished rows are dropped from the session once an eighth of it has finished. Each request draws from
 * its own PRNG, seeded with its `seed`, in the same order as it would alone, so its completions do not depend on
 * the other requests of the batch. result[i][j] is the j-th completion of request i.
 */
export async function generateBatch(
  backend: DecodeBackend,
  requests: readonly GenerationRequest[],
  options: BatchSamplingOptions,
  tokenizer?: Tokenizer,
): Promise<Completion[][]> {
  const resolved: Resolved = {
    temperature: options.temperature ?? 1,
    topK: options.topK ?? 0,
    topP: options.topP ?? 1,
  };
  const stopStrings = options.stopStrings ?? [];
  if (resolved.temperature < 0 || !(resolved.topP > 0 && resolved.topP <= 1) || resolved.topK < 0) {
    throw new ModelError(
      'INVALID_ARGUMENT',
      `temperature ${resolved.temperature}, topP ${resolved.topP}, topK ${resolved.topK}`,
    );
  }
  if (stopStrings.length && !tokenizer) throw new ModelError('INVALID_ARGUMENT', 'stopStrings need a tokenizer');
  if (requests.length === 0) return [];
  const stopTokens = new Set(options.stopTokens ?? []);
  // A stop string of c characters spans at most 4c + 1 byte-level tokens, so the tail decode is enough.
  const tail = 4 * Math.max(0, ...stopStrings.map((s) => s.length)) + 4;
  const running: Running[] = requests.map((request) => {
    const n = request.n ?? 1;
    if (!Number.isInteger(n) || n < 1)
      throw new ModelError('INVALID_ARGUMENT', `n must be a positive integer, got ${n}`);
    if (request.prompt.length === 0) throw new ModelError('INVALID_ARGUMENT', 'prompt is empty');
    const room = backend.maxLength - request.prompt.length;
    if (room < 1)
      throw new ModelError(
        'INVALID_ARGUMENT',
        `prompt of ${request.prompt.length} tokens fills the context of ${backend.maxLength}`,
      );
    if (request.spanWordTokens !== undefined && request.spanOf === undefined)
      throw new ModelError('INVALID_ARGUMENT', 'spanWordTokens needs spanOf');
    return {
      completions: Array.from({ length: n }, () => ({ tokens: [], logprobs: [], finishReason: 'length' as const })),
      steps: Math.min(request.maxNewTokens, room),
      rng: new Rng(request.seed ?? 0),
      spans:
        request.spanOf === undefined
          ? null
          : spanConstraints(request.spanOf, n, stopTokens, backend.vocabSize, request.spanWordTokens),
    };
  });
  // The session's rows, in order: [request, completion] of each. Rows of one request stay consecutive.
  let rows = running.flatMap((r, i) => r.completions.map((_, j) => [i, j] as const));
  const done = running.map((r) => new Array<boolean>(r.completions.length).fill(false));
  const vocab = backend.vocabSize;

  const { session, logits: first } = await backend.start(
    requests.map((request, i) => ({
      tokens: request.prompt,
      rows: running[i].completions.length,
      reuse: request.reuse,
    })),
  );
  try {
    let logits = first;
    let prefilled = true;
    for (;;) {
      rows.forEach(([i, j], r) => {
        if (done[i][j]) return;
        const request = running[i];
        const at = prefilled ? i : r;
        let row: ArrayLike<number> = logits.subarray(at * vocab, (at + 1) * vocab);
        const span = request.spans?.[j];
        if (span) {
          const allowed = span.allowed();
          // Every matching span reached its source's end and no stop token is set: the completion is whole.
          if (allowed.size === 0) {
            done[i][j] = true;
            return;
          }
          row = SpanConstraint.mask(row, allowed);
        }
        const { token, logprob } = sampleToken(row, resolved, request.rng);
        const c = request.completions[j];
        c.tokens.push(token);
        c.logprobs.push(logprob);
        span?.advance(token);
        if (stopTokens.has(token)) {
          c.finishReason = 'stop_token';
          done[i][j] = true;
        } else if (stopStrings.length && tokenizer) {
          const text = tokenizer.decode(c.tokens.slice(-tail));
          if (stopStrings.some((s) => text.includes(s))) {
            c.finishReason = 'stop_string';
            done[i][j] = true;
          }
        }
        if (c.tokens.length === request.steps) done[i][j] = true;
      });
      const live = rows.flatMap(([i, j], r) => (done[i][j] ? [] : [r]));
      if (live.length === 0) break;
      if (rows.length - live.length >= Math.max(1, rows.length >> 3)) {
        session.retain(live);
        rows = live.map((r) => rows[r]);
      }
      logits = await session.step(rows.map(([i, j]) => running[i].completions[j].tokens.at(-1)!));
      prefilled = false;
    }
  } finally {
    session.close();
  }
  const out = running.map((r) => r.completions);
  if (tokenizer) for (const c of out.flat()) c.text = tokenizer.decode(c.tokens);
  return out;
}
