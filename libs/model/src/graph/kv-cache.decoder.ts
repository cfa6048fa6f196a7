import type { CompiledGraph, HostTensor } from '@fathom/tensor';
import type { ModelConfig } from '../config';
import type { DecodeBackend, DecodeSession } from '../decode';
import { ModelError, ModelErrorCode } from '../errors';
import { ropeTables } from './model.graph';

/** What a masked-out cache position adds to its attention score. */
const MASKED = -1e9;
/**
 * Spare positions a cache is allocated with and grows by (at least; a quarter of the capacity when larger).
 * Attention runs over the whole capacity, so spare room costs compute each step; growing costs one copy.
 */
const GROWTH = 32;

/**
 * Decodes with a KV cache held in buffers this class owns, one per layer for keys and one for values, laid out
 * (rows, K, capacity, D) as attention reads them. Each step feeds the whole buffers zero-copy with a bias that
 * masks the unfilled positions, and its graph returns only the new position's keys and values, which are
 * copied in. (Returning the grown cache from the graph, or re-laying it out inside it, would copy all of it
 * every step.)
 */
export class KvCacheDecoder implements DecodeBackend {
  readonly vocabSize: number;
  readonly maxLength: number;

  constructor(
    private readonly config: ModelConfig,
    private readonly invFreq: Float64Array,
    private readonly prefillGraph: CompiledGraph<string>,
    private readonly stepGraph: CompiledGraph<string>,
  ) {
    this.vocabSize = config.vocabSize;
    this.maxLength = config.maxPositions;
  }

  /** Prefills `prompt` once, then copies its cache into `rows` rows (G completions share one prefill). */
  async start(prompt: readonly number[], rows: number): Promise<{ session: DecodeSession; logits: Float32Array }> {
    const { logits, session } = await this.startBatch([prompt], rows);
    return { session, logits: logits.subarray(0, this.vocabSize) };
  }

  /**
   * Prefills equal-length prompts as one batch; with `rowsPerPrompt` > 1 each prompt's cache is copied into that
   * many consecutive rows. Returns the last-position logits (prompts, V) and a session of prompts·rowsPerPrompt rows.
   */
  async startBatch(
    prompts: readonly (readonly number[])[],
    rowsPerPrompt = 1,
  ): Promise<{ session: KvCacheSession; logits: Float32Array }> {
    const n = prompts.length;
    const t = prompts[0]?.length ?? 0;
    if (n === 0 || t === 0 || prompts.some((p) => p.length !== t)) {
      throw new ModelError(
        ModelErrorCode.InvalidArgument,
        'prefill needs one or more non-empty prompts of equal length',
      );
    }
    if (!Number.isInteger(rowsPerPrompt) || rowsPerPrompt < 1) {
      throw new ModelError(
        ModelErrorCode.InvalidArgument,
        `rowsPerPrompt must be a positive integer, got ${rowsPerPrompt}`,
      );
    }
    if (t >= this.maxLength) {
      throw new ModelError(
        ModelErrorCode.InvalidArgument,
        `prompt of ${t} tokens fills the context of ${this.maxLength}`,
      );
    }
    const ids = BigInt64Array.from(prompts.flat(), (v) => this.token(v));
    const out = await this.prefillGraph.run({ ...this.ropeFeeds(0, t), input_ids: { data: ids, dims: [n, t] } });
    const session = new KvCacheSession(this, this.config, n * rowsPerPrompt, t);
    session.writeNew(out, t, rowsPerPrompt);
    return { session, logits: out.logits.data as Float32Array };
  }

  /** Releases the decoder's onnxruntime sessions. */
  async release(): Promise<void> {
    await this.prefillGraph.release();
    await this.stepGraph.release();
  }

  /** @internal runs one step for a session. */
  runStep(feeds: Record<string, HostTensor>, position: number): Promise<Record<string, HostTensor>> {
    return this.stepGraph.run({ ...feeds, ...this.ropeFeeds(position, 1) });
  }

  /** @internal */
  token(v: number): bigint {
    if (!Number.isInteger(v) || v < 0 || v >= this.vocabSize) {
      throw new ModelError(ModelErrorCode.InvalidArgument, `token ${v} is outside the vocabulary of ${this.vocabSize}`);
    }
    return BigInt(v);
  }

  private ropeFeeds(start: number, length: number) {
    const { cos, sin } = ropeTables(this.invFreq, start, length);
    const dims = [length, 2 * this.invFreq.length];
    return { rope_cos: { data: cos, dims }, rope_sin: { data: sin, dims } };
  }
}

/** One batch being decoded: its cache buffers and length. */
export class KvCacheSession implements DecodeSession {
  private keys: Float32Array[];
  private values: Float32Array[];
  private bias: Float32Array;
  private capacity: number;
  /** Positions in the cache. */
  length = 0;
  /** Row-heads: rows · K blocks of (capacity, D) in each buffer. */
  private readonly blocks: number;

  constructor(
    private readonly decoder: KvCacheDecoder,
    private readonly config: ModelConfig,
    readonly rows: number,
    promptLength: number,
  ) {
    this.blocks = rows * config.numKvHeads;
    this.capacity = Math.min(config.maxPositions, promptLength + GROWTH);
    const size = this.blocks * this.capacity * config.headDim;
    this.keys = Array.from({ length: config.numLayers }, () => new Float32Array(size));
    this.values = Array.from({ length: config.numLayers }, () => new Float32Array(size));
    this.bias = new Float32Array(this.capacity).fill(MASKED);
  }

  /**
   * @internal copies a graph's new keys and values (n, K, T, D) in at the current length, each of the n source
   * rows into `copies` consecutive rows, and unmasks those T positions.
   */
  writeNew(out: Record<string, { data: unknown }>, t: number, copies = 1): void {
    const { numKvHeads: k, headDim: d } = this.config;
    const n = this.rows / copies;
    for (let l = 0; l < this.config.numLayers; l++) {
      for (const [src, dst] of [
        [out[`key.${l}`].data as Float32Array, this.keys[l]],
        [out[`value.${l}`].data as Float32Array, this.values[l]],
      ] as const) {
        for (let p = 0; p < n; p++) {
          for (let h = 0; h < k; h++) {
            const block = src.subarray((p * k + h) * t * d, (p * k + h + 1) * t * d);
            for (let c = 0; c < copies; c++)
              dst.set(block, (((p * copies + c) * k + h) * this.capacity + this.length) * d);
          }
        }
      }
    }
    this.bias.fill(0, this.length, this.length + t);
    this.length += t;
  }

  async step(tokens: readonly number[]): Promise<Float32Array> {
    if (tokens.length !== this.rows) {
      throw new ModelError(ModelErrorCode.InvalidArgument, `step got ${tokens.length} tokens for ${this.rows} rows`);
    }
    if (this.length >= this.config.maxPositions) {
      throw new ModelError(
        ModelErrorCode.InvalidArgument,
        `the cache is full at ${this.config.maxPositions} positions`,
      );
    }
    if (this.length === this.capacity) this.grow();
    const dims = [this.rows, this.config.numKvHeads, this.capacity, this.config.headDim];
    const feeds: Record<string, HostTensor> = {
      input_ids: { data: BigInt64Array.from(tokens, (v) => this.decoder.token(v)), dims: [this.rows, 1] },
      past_bias: { data: this.bias, dims: [this.capacity] },
    };
    for (let l = 0; l < this.config.numLayers; l++) {
      feeds[`past_key.${l}`] = { data: this.keys[l], dims };
      feeds[`past_value.${l}`] = { data: this.values[l], dims };
    }
    const out = await this.decoder.runStep(feeds, this.length);
    this.writeNew(out, 1);
    return out.logits.data as Float32Array;
  }

  close(): void {
    this.keys = [];
    this.values = [];
  }

  private grow(): void {
    const old = this.capacity;
    this.capacity = Math.min(this.config.maxPositions, old + Math.max(GROWTH, old >> 2));
    const d = this.config.headDim;
    const enlarge = (buffer: Float32Array) => {
      const next = new Float32Array(this.blocks * this.capacity * d);
      for (let b = 0; b < this.blocks; b++)
        next.set(buffer.subarray(b * old * d, (b * old + this.length) * d), b * this.capacity * d);
      return next;
    };
    this.keys = this.keys.map(enlarge);
    this.values = this.values.map(enlarge);
    const bias = new Float32Array(this.capacity).fill(MASKED);
    bias.set(this.bias.subarray(0, this.length));
    this.bias = bias;
  }
}
