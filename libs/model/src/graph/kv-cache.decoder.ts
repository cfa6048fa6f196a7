import type { CompiledGraph, HostTensor } from '@fathom/tensor';
import type { ModelConfig } from '../config';
import type { DecodeBackend, DecodePrompt, DecodeSession } from '../decode';
import { ModelError } from '../errors';
import { ropeTables } from './model.graph';

/** What a masked-out cache position adds to its attention score. */
const MASKED = -1e9;
/**
 * Spare positions a cache is allocated with and grows by (at least; a quarter of the capacity when larger).
 * Attention runs over the whole capacity, so spare room costs compute each step; growing costs one copy.
 */
const GROWTH = 32;
/** Bytes of kept prefixes a decoder holds by default; the oldest go first. */
export const PREFIX_CACHE_BYTES = 512 * 2 ** 20;
/** The shortest shared prefix that is reused rather than prefilled again. */
const MIN_REUSE = 16;

/** The decoding graphs of one set of weights (`ModelGraphs.decoder`); `extend` is built on first use. */
export interface DecoderGraphs {
  prefill: CompiledGraph<string>;
  step: CompiledGraph<string>;
  extend: () => CompiledGraph<string>;
}

/** A decoded sequence kept for reuse: its tokens and, per layer, its keys and values (K, n, D). */
interface KeptPrefix {
  tokens: readonly number[];
  keys: Float32Array[];
  values: Float32Array[];
  bytes: number;
}

/** Kept prefixes under a byte budget, oldest first. */
class PrefixCache {
  private entries: KeptPrefix[] = [];
  private bytes = 0;

  constructor(private readonly budget: number) {}

  add(entry: KeptPrefix): void {
    this.entries.push(entry);
    this.bytes += entry.bytes;
    while (this.bytes > this.budget && this.entries.length > 0) this.bytes -= this.entries.shift()!.bytes;
  }

  /**
   * Takes out the kept prefix sharing the most leading tokens with `tokens` (at least MIN_REUSE). An episode's
   * turn continues its last turn only, and keeps a longer prefix of its own when its rows are dropped.
   */
  take(tokens: readonly number[]): { entry: KeptPrefix; shared: number } | null {
    let best: { entry: KeptPrefix; shared: number } | null = null;
    for (const entry of this.entries) {
      const limit = Math.min(entry.tokens.length, tokens.length);
      let shared = 0;
      while (shared < limit && entry.tokens[shared] === tokens[shared]) shared++;
      if (shared >= MIN_REUSE && shared >= (best?.shared ?? 0)) best = { entry, shared };
    }
    if (best) {
      this.entries.splice(this.entries.indexOf(best.entry), 1);
      this.bytes -= best.entry.bytes;
    }
    return best;
  }

  clear(): void {
    this.entries = [];
    this.bytes = 0;
  }
}

/**
 * Decodes with a KV cache held in buffers this class owns, one per layer for keys and one for values, laid out
 * (rows, K, capacity, D) as attention reads them. Rows may hold sequences of different lengths: each step feeds
 * every row's rotary position and a per-row bias masking its unfilled positions, feeds the whole buffers
 * zero-copy, and its graph returns only the new position's keys and values, which are copied in at each row's
 * length. (Returning the grown cache from the graph, or re-laying it out inside it, would copy all of it every
 * step.)
 *
 * Rows of a prompt marked `reuse` are kept when their session drops them (up to `prefixCacheBytes`), and a later
 * `reuse` prompt that shares a prefix with one of them prefills only the rest: an episode's next turn, whose prompt
 * is the last one plus its completion and an observation, costs the new tokens only.
 */
export class KvCacheDecoder implements DecodeBackend {
  readonly vocabSize: number;
  readonly maxLength: number;
  /** Rotary tables of every position, (maxLength, D) each: a step copies its rows' positions out of them. */
  private rope?: { cos: Float32Array; sin: Float32Array };
  private extendGraph?: CompiledGraph<string>;
  private readonly kept: PrefixCache;
  /** Prompt positions computed by a prefill or an extension, and positions copied from a kept prefix instead. */
  readonly positions = { computed: 0, reused: 0 };

  constructor(
    private readonly config: ModelConfig,
    private readonly invFreq: Float64Array,
    private readonly graphs: DecoderGraphs,
    prefixCacheBytes = PREFIX_CACHE_BYTES,
  ) {
    this.vocabSize = config.vocabSize;
    this.maxLength = config.maxPositions;
    this.kept = new PrefixCache(prefixCacheBytes);
  }

  /**
   * Starts each prompt's rows: from its longest kept prefix when it is marked `reuse` and one is kept, else from a
   * prefill (prompts of equal length as one batch). Returns the last-position logits (prompts, V).
   */
  async start(prompts: readonly DecodePrompt[]): Promise<{ session: KvCacheSession; logits: Float32Array }> {
    if (prompts.length === 0) throw new ModelError('INVALID_ARGUMENT', 'a decode session needs at least one prompt');
    for (const { tokens, rows } of prompts) {
      if (tokens.length === 0) throw new ModelError('INVALID_ARGUMENT', 'prefill of an empty prompt');
      if (!Number.isInteger(rows) || rows < 1)
        throw new ModelError('INVALID_ARGUMENT', `rows must be a positive integer, got ${rows}`);
      if (tokens.length >= this.maxLength)
        throw new ModelError(
          'INVALID_ARGUMENT',
          `prompt of ${tokens.length} tokens fills the context of ${this.maxLength}`,
        );
      for (const v of tokens) this.token(v);
    }
    const session = new KvCacheSession(this, this.config, prompts);
    const logits = new Float32Array(prompts.length * this.vocabSize);
    const firstRow: number[] = [];
    prompts.reduce((row, { rows }) => (firstRow.push(row), row + rows), 0);
    const byLength = new Map<number, number[]>();
    for (const [i, { tokens, rows, reuse }] of prompts.entries()) {
      const match = reuse ? this.kept.take(tokens) : null;
      if (match === null) {
        byLength.set(tokens.length, [...(byLength.get(tokens.length) ?? []), i]);
        continue;
      }
      const shared = Math.min(match.shared, tokens.length - 1);
      this.positions.reused += shared;
      this.positions.computed += tokens.length - shared;
      const out = await this.extend(match.entry, shared, tokens.slice(shared));
      session.writeKept(match.entry, shared, firstRow[i], rows);
      session.writeNew(out, 0, shared, tokens.length - shared, firstRow[i], rows);
      logits.set(out.logits.data as Float32Array, i * this.vocabSize);
    }
    for (const [t, group] of byLength) {
      this.positions.computed += t * group.length;
      const ids = BigInt64Array.from(
        group.flatMap((i) => prompts[i].tokens),
        BigInt,
      );
      const out = await this.graphs.prefill.run({
        ...this.ropeFeeds(0, t),
        input_ids: { data: ids, dims: [group.length, t] },
      });
      const last = out.logits.data as Float32Array;
      group.forEach((i, n) => {
        session.writeNew(out, n, 0, t, firstRow[i], prompts[i].rows);
        logits.set(last.subarray(n * this.vocabSize, (n + 1) * this.vocabSize), i * this.vocabSize);
      });
    }
    return { session, logits };
  }

  /** Drops every kept prefix (a policy version's episodes are done). */
  forget(): void {
    this.kept.clear();
  }

  /** Releases the decoder's onnxruntime sessions and kept prefixes. */
  async release(): Promise<void> {
    this.kept.clear();
    await this.graphs.prefill.release();
    await this.graphs.step.release();
    await this.extendGraph?.release();
  }

  /** @internal runs one step, each row at its own position. */
  runStep(feeds: Record<string, HostTensor>, positions: Int32Array): Promise<Record<string, HostTensor>> {
    const d = 2 * this.invFreq.length;
    this.rope ??= ropeTables(this.invFreq, 0, this.maxLength);
    const cos = new Float32Array(positions.length * d);
    const sin = new Float32Array(positions.length * d);
    positions.forEach((p, r) => {
      cos.set(this.rope!.cos.subarray(p * d, (p + 1) * d), r * d);
      sin.set(this.rope!.sin.subarray(p * d, (p + 1) * d), r * d);
    });
    const dims = [positions.length, 1, 1, d];
    return this.graphs.step.run({ ...feeds, rope_cos: { data: cos, dims }, rope_sin: { data: sin, dims } });
  }

  /** @internal keeps a row's sequence and its keys and values (per layer (K, n, D)) for later prompts. */
  keep(entry: KeptPrefix): void {
    this.kept.add(entry);
  }

  /** @internal */
  token(v: number): bigint {
    if (!Number.isInteger(v) || v < 0 || v >= this.vocabSize) {
      throw new ModelError('INVALID_ARGUMENT', `token ${v} is outside the vocabulary of ${this.vocabSize}`);
    }
    return BigInt(v);
  }

  /** Runs `tokens` after the first `shared` positions of a kept prefix, fed zero-copy with the rest masked. */
  private extend(entry: KeptPrefix, shared: number, tokens: readonly number[]) {
    const { numKvHeads: k, headDim: d } = this.config;
    const n = entry.tokens.length;
    const bias = new Float32Array(n).fill(MASKED);
    bias.fill(0, 0, shared);
    const feeds: Record<string, HostTensor> = {
      ...this.ropeFeeds(shared, tokens.length),
      input_ids: { data: BigInt64Array.from(tokens, BigInt), dims: [1, tokens.length] },
      past_bias: { data: bias, dims: [1, n] },
    };
    for (let l = 0; l < this.config.numLayers; l++) {
      feeds[`past_key.${l}`] = { data: entry.keys[l], dims: [1, k, n, d] };
      feeds[`past_value.${l}`] = { data: entry.values[l], dims: [1, k, n, d] };
    }
    this.extendGraph ??= this.graphs.extend();
    return this.extendGraph.run(feeds);
  }

  private ropeFeeds(start: number, length: number) {
    const { cos, sin } = ropeTables(this.invFreq, start, length);
    const dims = [length, 2 * this.invFreq.length];
    return { rope_cos: { data: cos, dims }, rope_sin: { data: sin, dims } };
  }
}

/** Rows being decoded together: their cache buffers, and each row's length. */
export class KvCacheSession implements DecodeSession {
  private keys: Float32Array[];
  private values: Float32Array[];
  /** (rows, capacity): 0 at a row's filled positions, MASKED beyond them. */
  private bias: Float32Array;
  private capacity: number;
  /** Positions filled in each row. */
  private lengths: Int32Array;
  /** The tokens of each row that is kept when dropped (its prompt was marked `reuse`), else null. */
  private sequences: (number[] | null)[];

  constructor(
    private readonly decoder: KvCacheDecoder,
    private readonly config: ModelConfig,
    prompts: readonly DecodePrompt[],
  ) {
    this.lengths = Int32Array.from(prompts.flatMap(({ tokens, rows }) => new Array<number>(rows).fill(tokens.length)));
    this.sequences = prompts.flatMap(({ tokens, rows, reuse }) =>
      Array.from({ length: rows }, () => (reuse ? [...tokens] : null)),
    );
    this.capacity = this.fit(Math.max(...this.lengths));
    this.keys = this.buffers(this.rows, this.capacity);
    this.values = this.buffers(this.rows, this.capacity);
    this.bias = new Float32Array(this.rows * this.capacity).fill(MASKED);
  }

  get rows(): number {
    return this.lengths.length;
  }

  /**
   * @internal copies prompt `source` of a graph's new keys and values (n, K, t, D) into rows [first, first + copies)
   * at position `at`, and unmasks positions [0, at + t) of those rows.
   */
  writeNew(
    out: Record<string, { data: unknown }>,
    source: number,
    at: number,
    t: number,
    first: number,
    copies: number,
  ): void {
    this.copyIn(this.layersOf(out), source, t, t, at, first, copies);
    for (let r = first; r < first + copies; r++) this.bias.fill(0, r * this.capacity, r * this.capacity + at + t);
  }

  /** @internal copies the first `shared` positions of a kept prefix into rows [first, first + copies). */
  writeKept(entry: KeptPrefix, shared: number, first: number, copies: number): void {
    this.copyIn(entry, 0, entry.tokens.length, shared, 0, first, copies);
  }

  async step(tokens: readonly number[]): Promise<Float32Array> {
    if (tokens.length !== this.rows) {
      throw new ModelError('INVALID_ARGUMENT', `step got ${tokens.length} tokens for ${this.rows} rows`);
    }
    const longest = Math.max(...this.lengths);
    if (longest >= this.config.maxPositions) {
      throw new ModelError('INVALID_ARGUMENT', `the cache is full at ${this.config.maxPositions} positions`);
    }
    if (longest === this.capacity) this.relayout(Array.from(this.lengths.keys()), this.fit(longest));
    const { numKvHeads: k, headDim: d } = this.config;
    const dims = [this.rows, k, this.capacity, d];
    const feeds: Record<string, HostTensor> = {
      input_ids: { data: BigInt64Array.from(tokens, (v) => this.decoder.token(v)), dims: [this.rows, 1] },
      past_bias: { data: this.bias, dims: [this.rows, this.capacity] },
    };
    for (let l = 0; l < this.config.numLayers; l++) {
      feeds[`past_key.${l}`] = { data: this.keys[l], dims };
      feeds[`past_value.${l}`] = { data: this.values[l], dims };
    }
    const out = await this.decoder.runStep(feeds, this.lengths);
    const added = this.layersOf(out);
    for (let r = 0; r < this.rows; r++) this.copyIn(added, r, 1, 1, this.lengths[r], r, 1);
    for (let r = 0; r < this.rows; r++) {
      this.bias[r * this.capacity + this.lengths[r]++] = 0;
      this.sequences[r]?.push(tokens[r]);
    }
    return out.logits.data as Float32Array;
  }

  retain(rows: readonly number[]): void {
    for (const r of rows)
      if (!Number.isInteger(r) || r < 0 || r >= this.rows)
        throw new ModelError('INVALID_ARGUMENT', `row ${r} is not in a session of ${this.rows} rows`);
    const kept = new Set(rows);
    for (let r = 0; r < this.rows; r++) if (!kept.has(r)) this.keepRow(r);
    const longest = rows.reduce((m, r) => Math.max(m, this.lengths[r]), 0);
    this.relayout(rows, Math.min(this.capacity, this.fit(longest)));
  }

  close(): void {
    for (let r = 0; r < this.rows; r++) this.keepRow(r);
    this.keys = [];
    this.values = [];
    this.lengths = new Int32Array();
    this.sequences = [];
  }

  /** Hands row r's sequence and cache to the decoder's kept prefixes, if its prompt asked for that. */
  private keepRow(r: number): void {
    const tokens = this.sequences[r];
    if (!tokens) return;
    const { numKvHeads: k, headDim: d } = this.config;
    const n = this.lengths[r];
    const copy = (buffer: Float32Array) => {
      const out = new Float32Array(k * n * d);
      for (let h = 0; h < k; h++) {
        const from = (r * k + h) * this.capacity * d;
        out.set(buffer.subarray(from, from + n * d), h * n * d);
      }
      return out;
    };
    const keys = this.keys.map(copy);
    const values = this.values.map(copy);
    this.decoder.keep({ tokens, keys, values, bytes: 2 * this.config.numLayers * k * n * d * 4 });
  }

  /** A graph's new keys and values, per layer. */
  private layersOf(out: Record<string, { data: unknown }>): Pick<KeptPrefix, 'keys' | 'values'> {
    const layer = (name: string) =>
      Array.from({ length: this.config.numLayers }, (_, l) => out[`${name}.${l}`].data as Float32Array);
    return { keys: layer('key'), values: layer('value') };
  }

  /**
   * Copies the first `count` positions of sequence `index` of per-layer keys and values laid out (·, K, n, D) into
   * rows [first, first + copies), from position `at` on.
   */
  private copyIn(
    src: Pick<KeptPrefix, 'keys' | 'values'>,
    index: number,
    n: number,
    count: number,
    at: number,
    first: number,
    copies: number,
  ): void {
    const { numKvHeads: k, headDim: d } = this.config;
    for (let l = 0; l < this.config.numLayers; l++) {
      for (const [from, to] of [
        [src.keys[l], this.keys[l]],
        [src.values[l], this.values[l]],
      ] as const) {
        for (let h = 0; h < k; h++) {
          const block = from.subarray((index * k + h) * n * d, ((index * k + h) * n + count) * d);
          for (let r = first; r < first + copies; r++) to.set(block, ((r * k + h) * this.capacity + at) * d);
        }
      }
    }
  }

  /** The capacity for sequences of up to `length` positions: that many plus room to grow. */
  private fit(length: number): number {
    return Math.min(this.config.maxPositions, length + Math.max(GROWTH, length >> 2));
  }

  private buffers(rows: number, capacity: number): Float32Array[] {
    const size = rows * this.config.numKvHeads * capacity * this.config.headDim;
    return Array.from({ length: this.config.numLayers }, () => new Float32Array(size));
  }

  /**
   * Moves the filled positions of `rows` (in that order) into buffers of `capacity` positions: in place when rows
   * only move down (increasing rows, capacity not larger), as dropping finished rows does, else into new buffers.
   */
  private relayout(rows: readonly number[], capacity: number): void {
    const { numKvHeads: k, headDim: d } = this.config;
    const old = this.capacity;
    const inPlace = capacity <= old && rows.every((r, i) => i === 0 || r > rows[i - 1]);
    const size = rows.length * k * capacity * d;
    const move = (buffer: Float32Array) => {
      // In place, every block moves to an offset no later than its own, and before the next block's source.
      const next = inPlace ? buffer.subarray(0, size) : new Float32Array(size);
      rows.forEach((r, i) => {
        for (let h = 0; h < k; h++) {
          const from = (r * k + h) * old * d;
          const to = (i * k + h) * capacity * d;
          if (!inPlace) next.set(buffer.subarray(from, from + this.lengths[r] * d), to);
          else if (to !== from) buffer.copyWithin(to, from, from + this.lengths[r] * d);
        }
      });
      return next;
    };
    this.keys = this.keys.map(move);
    this.values = this.values.map(move);
    const lengths = Int32Array.from(rows, (r) => this.lengths[r]);
    this.bias = inPlace ? this.bias.subarray(0, rows.length * capacity) : new Float32Array(rows.length * capacity);
    this.bias.fill(MASKED);
    lengths.forEach((length, i) => this.bias.fill(0, i * capacity, i * capacity + length));
    this.lengths = lengths;
    this.sequences = rows.map((r) => this.sequences[r]);
    this.capacity = capacity;
  }
}
