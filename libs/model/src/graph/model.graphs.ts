import {
  add,
  CompiledGraph,
  Graph,
  grad,
  matmul,
  mul,
  reduceSum,
  Runtime,
  type RuntimeConfig,
  reshape,
  slice,
  squeeze,
  type Tensor,
  tokenEntropy,
  tokenLogProbs,
  transpose,
  unsqueeze,
} from '@fathom/tensor';
import { ropeInverseFrequencies, type ModelConfig } from '../config';
import { ModelError } from '../errors';
import { WORD_TAGS, wordFeatureCount } from '../word-features';
import { loraSpecs, mergeLora } from '../lora';
import { checkParams, type ParamMap, type ParamSpec, paramSpecs, SPAN_HEAD } from '../params';
import { KvCacheDecoder } from './kv-cache.decoder';
import {
  declareWeights,
  forward,
  type GraphWeightMode,
  lmHead,
  type PastKv,
  ropeTables,
  type WeightMode,
} from './model.graph';

/** A batch of token sequences, row-major (B, T); every row has the same length (pad on the right). */
export interface TokenBatch {
  batch: number;
  length: number;
  /** Input tokens (B, T). */
  ids: ArrayLike<number>;
  /** The token each position predicts (B, T): usually ids shifted left by one. Ignored where weights are 0. */
  targets: ArrayLike<number>;
  /**
   * Added to the logits before the log-softmax of the train and log-prob graphs (B, T, V); absent: zeros. A position
   * decoded under a constraint (an extractive read's `SpanConstraint`) carries `MASKED_LOGIT` on every token it could
   * not emit, so its log-probs are those of the distribution it was sampled from.
   */
  logitBias?: Float32Array;
}

/** The logit bias of a token a constrained position may not emit: exp() of it is 0, and 0 · it is 0, not NaN. */
export const MASKED_LOGIT = -1e9;

/** Reader prompts for the span head, row-major (B, T), right-padded like a `TokenBatch`. */
export interface SpanBatch {
  batch: number;
  length: number;
  /** Prompt tokens (B, T). */
  ids: ArrayLike<number>;
  /** The exact-match input (B, T): 1 at chunk positions whose word occurs in the question, else 0. */
  match: Float32Array;
  /** The word-feature input (B, T): each position's `wordFeature` id (0 outside the chunk); absent: all 0. */
  feature?: ArrayLike<number>;
  /** The word-tag input (B, T): each position's `WORD_TAGS` index (0 outside the chunk); absent: all 0. */
  tag?: ArrayLike<number>;
  /** The word-vector input (B, T): each position's row of `reader.word_vectors` (0: none); absent: all 0. */
  vector?: ArrayLike<number>;
}

/** Which span each row read (or was taught), and where it was allowed to start and end. */
export interface SpanTargets {
  /** (B, T): 0 where the row's span may start (its chunk's word starts and its no-answer position), else MASKED_LOGIT. */
  startBias: Float32Array;
  /** (B, T): 0 where the row's span may end given its start, else MASKED_LOGIT (only the no-answer position after it). */
  endBias: Float32Array;
  /** (B): the start position of each row's span. */
  start: ArrayLike<number>;
  /** (B): the end position (inclusive). */
  end: ArrayLike<number>;
}

export interface SpanTrainResult {
  /** Σ rowWeights[b] · logprobs[b]. */
  loss: number;
  /** log p(start) + log p(end | start) of each row (B) under its biases. */
  logprobs: Float32Array;
  grads: Map<string, Float32Array>;
}

export interface TrainResult {
  /** Σ weights[b, t] · logp[b, t]. */
  loss: number;
  /** log p(targets[b, t] | ids[b, ≤t]) at temperature 1, (B, T). */
  logprobs: Float32Array;
  /** Entropy (nats) of the next-token distribution at every position, (B, T): from the same forward. */
  entropy: Float32Array;
  /** d loss / d weight for every trainable tensor (all parameters, or only the LoRA adapters), by name. */
  grads: Map<string, Float32Array>;
}

/**
 * Checks an optional per-position id input of a span batch (`word_feature`, `word_tag`, `word_vector`): one entry per position,
 * each an integer in [0, count); throws `invalid(value, position)` for the first that is not.
 */
function checkIdInput(
  b: SpanBatch,
  name: string,
  values: ArrayLike<number> | undefined,
  count: number,
  invalid: (value: number, at: number) => string,
): void {
  if (values === undefined) return;
  if (values.length !== b.batch * b.length)
    throw new ModelError('INVALID_ARGUMENT', `${name} has ${values.length} entries, batch is ${b.batch}×${b.length}`);
  for (let i = 0; i < values.length; i++)
    if (!Number.isInteger(values[i]) || values[i] < 0 || values[i] >= count)
      throw new ModelError('INVALID_ARGUMENT', invalid(values[i], i));
}

/**
 * The three graphs of one model: training (loss and gradients), log-probs of given tokens, and decoding with
 * a KV cache (plus full logits, for parity checks). Each is built and compiled on first use.
 *
 * Weights are passed on every call as a map by name: all parameters in 'full' mode, the LoRA adapters in
 * 'lora' mode (the base is frozen into the graphs). They enter as inputs, zero-copy, so an optimizer can update
 * them in place between calls.
 */
export class ModelGraphs {
  /** Names and shapes of the tensors a call must be given: the trainable ones and any frozen inputs. */
  readonly weightSpecs: readonly ParamSpec[];
  /** Names and shapes of the tensors the train graphs differentiate (all parameters but frozen ones, or LoRA's). */
  readonly trainableSpecs: readonly ParamSpec[];
  private readonly invFreq: Float64Array;
  private readonly runtime: Runtime;
  /** Decoding changes the cache length every step, so its sessions must not be specialised per shape. */
  private readonly dynamicRuntime: Runtime;
  private train?: CompiledGraph<string>;
  private logprobGraph?: CompiledGraph<'logprobs'>;
  private logitsGraph?: CompiledGraph<'logits'>;
  private spanTrain?: CompiledGraph<string>;
  private spanLogitsGraph?: CompiledGraph<'start' | 'end'>;

  constructor(
    readonly config: ModelConfig,
    readonly mode: WeightMode = { kind: 'full' },
    runtime: RuntimeConfig = {},
  ) {
    if (mode.kind === 'lora') checkParams(config, mode.base);
    this.weightSpecs = mode.kind === 'full' ? paramSpecs(config) : loraSpecs(config, mode.lora);
    this.trainableSpecs = this.weightSpecs.filter((s) => !s.frozen);
    this.invFreq = ropeInverseFrequencies(config);
    this.runtime = new Runtime(runtime);
    this.dynamicRuntime = new Runtime({ ...runtime, specializeShapes: false });
  }

  /** Gradients of Σ weights · logp (minimise it: SFT weights are −mask / count, GRPO's come from `grpoLoss`). */
  async trainStep(weights: ParamMap, batch: TokenBatch, tokenWeights: Float32Array): Promise<TrainResult> {
    this.checkBatch(batch);
    if (tokenWeights.length !== batch.batch * batch.length) {
      throw new ModelError(
        'INVALID_ARGUMENT',
        `token weights have ${tokenWeights.length} entries, batch is ${batch.batch}×${batch.length}`,
      );
    }
    this.train ??= this.buildTrain();
    const out = await this.train.run({
      ...this.weightFeeds(weights),
      ...this.batchFeeds(batch),
      ...this.biasFeed(batch),
      token_weights: tokenWeights,
    });
    const grads = new Map<string, Float32Array>();
    for (const spec of this.trainableSpecs) grads.set(spec.name, out[`grad:${spec.name}`].data as Float32Array);
    return {
      loss: (out.loss.data as Float32Array)[0],
      logprobs: out.logprobs.data as Float32Array,
      entropy: out.entropy.data as Float32Array,
      grads,
    };
  }

  /** log p(targets | prefix) per position (B, T), at `temperature` (logits divided by it). */
  async logprobs(weights: ParamMap, batch: TokenBatch, temperature = 1): Promise<Float32Array> {
    this.checkBatch(batch);
    if (!(temperature > 0)) throw new ModelError('INVALID_ARGUMENT', `temperature ${temperature}`);
    this.logprobGraph ??= this.buildLogprobs();
    const out = await this.logprobGraph.run({
      ...this.weightFeeds(weights),
      ...this.batchFeeds(batch),
      ...this.biasFeed(batch),
      inv_temperature: { data: Float32Array.of(1 / temperature), dims: [] },
    });
    return out.logprobs.data as Float32Array;
  }

  /** Logits of every position, (B, T, V). */
  async logits(weights: ParamMap, ids: ArrayLike<number>, batch: number, length: number): Promise<Float32Array> {
    this.checkBatch({ batch, length, ids, targets: ids });
    this.logitsGraph ??= this.buildLogits();
    const { targets: _, ...feeds } = this.batchFeeds({ batch, length, ids, targets: ids });
    return (await this.logitsGraph.run({ ...this.weightFeeds(weights), ...feeds })).logits.data as Float32Array;
  }

  /**
   * Gradients of Σ rowWeights · (log p(start) + log p(end | start)) through the span head and the exact-match input
   * (reader SFT weights are −1 / B; a policy gradient's are −advantage / B). Needs a model with `reader.spanHead`.
   */
  async spanTrainStep(
    weights: ParamMap,
    batch: SpanBatch & SpanTargets,
    rowWeights: Float32Array,
  ): Promise<SpanTrainResult> {
    this.checkSpanBatch(batch);
    const n = batch.batch * batch.length;
    if (batch.startBias.length !== n || batch.endBias.length !== n)
      throw new ModelError('INVALID_ARGUMENT', `span biases must have ${n} entries (B×T)`);
    if (batch.start.length !== batch.batch || batch.end.length !== batch.batch || rowWeights.length !== batch.batch)
      throw new ModelError('INVALID_ARGUMENT', `span targets and row weights must have ${batch.batch} rows`);
    for (const at of [...Array.from(batch.start), ...Array.from(batch.end)])
      if (!Number.isInteger(at) || at < 0 || at >= batch.length)
        throw new ModelError('INVALID_ARGUMENT', `span position ${at} is outside 0..${batch.length - 1}`);
    this.spanTrain ??= this.buildSpanTrain();
    const rows = [batch.batch, 1];
    const out = await this.spanTrain.run({
      ...this.weightFeeds(weights),
      ...this.spanFeeds(batch),
      start_bias: { data: batch.startBias, dims: [batch.batch, batch.length] },
      end_bias: { data: batch.endBias, dims: [batch.batch, batch.length] },
      span_start: { data: BigInt64Array.from(Array.from(batch.start), BigInt), dims: rows },
      span_end: { data: BigInt64Array.from(Array.from(batch.end), BigInt), dims: rows },
      row_weights: { data: rowWeights, dims: rows },
    });
    const grads = new Map<string, Float32Array>();
    for (const spec of this.trainableSpecs) grads.set(spec.name, out[`grad:${spec.name}`].data as Float32Array);
    return { loss: (out.loss.data as Float32Array)[0], logprobs: out.logprobs.data as Float32Array, grads };
  }

  /** Start and end logits of every position (B, T) each, from the span head over the exact-match input. */
  async spanLogits(weights: ParamMap, batch: SpanBatch): Promise<{ start: Float32Array; end: Float32Array }> {
    this.checkSpanBatch(batch);
    this.spanLogitsGraph ??= this.buildSpanLogits();
    const out = await this.spanLogitsGraph.run({ ...this.weightFeeds(weights), ...this.spanFeeds(batch) });
    return { start: out.start.data as Float32Array, end: out.end.data as Float32Array };
  }

  /**
   * A KV-cache decoder over a snapshot of these weights (LoRA adapters merged into the base). The weights are
   * baked into its graphs as initializers, which lets onnxruntime pre-transpose and pre-pack them for its GEMMs:
   * decoding runs many small steps, where that matters more than zero-copy feeds. Later in-place updates of
   * `weights` do not reach it; make a new decoder per policy version and `release()` the old one.
   */
  decoder(weights: ParamMap): KvCacheDecoder {
    this.checkWeights(weights);
    const mode = this.mode;
    // Copied: onnxruntime reads initializers when a graph first runs, and the extend graph first runs later.
    const base =
      mode.kind === 'lora'
        ? mergeLora(this.config, mode.base, mode.lora, weights)
        : new Map([...weights].map(([name, w]) => [name, w.slice()]));
    const frozen = { kind: 'frozen', base } as const;
    return new KvCacheDecoder(this.config, this.invFreq, {
      prefill: this.buildDecode('prefill', frozen),
      step: this.buildDecode('step', frozen),
      extend: () => this.buildDecode('extend', frozen),
    });
  }

  /** Releases the compiled sessions of the training, log-prob and logits graphs (decoders release their own). */
  async release(): Promise<void> {
    for (const g of [this.train, this.logprobGraph, this.logitsGraph, this.spanTrain, this.spanLogitsGraph])
      await g?.release();
  }

  private checkWeights(weights: ParamMap): void {
    for (const spec of this.weightSpecs) {
      const t = weights.get(spec.name);
      const n = spec.shape.reduce((a, b) => a * b, 1);
      if (!t) throw new ModelError('INVALID_TENSOR', `'${spec.name}' is missing from the weights`);
      if (t.length !== n)
        throw new ModelError(
          'INVALID_TENSOR',
          `'${spec.name}' has ${t.length} elements, needs [${spec.shape.join(', ')}]`,
        );
    }
  }

  private weightFeeds(weights: ParamMap): Record<string, Float32Array> {
    this.checkWeights(weights);
    return Object.fromEntries(this.weightSpecs.map((s) => [s.name, weights.get(s.name)!]));
  }

  private checkBatch(b: TokenBatch): void {
    const n = b.batch * b.length;
    if (!(b.batch > 0 && b.length > 0) || b.ids.length !== n || b.targets.length !== n) {
      throw new ModelError(
        'INVALID_ARGUMENT',
        `batch ${b.batch}×${b.length} with ${b.ids.length} ids and ${b.targets.length} targets`,
      );
    }
    if (b.logitBias !== undefined && b.logitBias.length !== n * this.config.vocabSize)
      throw new ModelError(
        'INVALID_ARGUMENT',
        `logit bias has ${b.logitBias.length} entries, batch is ${b.batch}×${b.length}×${this.config.vocabSize}`,
      );
    if (b.length > this.config.maxPositions) {
      throw new ModelError(
        'INVALID_ARGUMENT',
        `length ${b.length} exceeds max_position_embeddings ${this.config.maxPositions}`,
      );
    }
    for (const arr of [b.ids, b.targets]) {
      for (let i = 0; i < n; i++) {
        const t = arr[i];
        if (!Number.isInteger(t) || t < 0 || t >= this.config.vocabSize) {
          throw new ModelError(
            'INVALID_ARGUMENT',
            `token ${t} at ${i} is outside the vocabulary of ${this.config.vocabSize}`,
          );
        }
      }
    }
  }

  private checkSpanBatch(b: SpanBatch): void {
    if (!this.config.reader?.spanHead)
      throw new ModelError('INVALID_ARGUMENT', 'this model has no span head (config.json fathom_reader)');
    this.checkBatch({ batch: b.batch, length: b.length, ids: b.ids, targets: b.ids });
    if (b.match.length !== b.batch * b.length)
      throw new ModelError('INVALID_ARGUMENT', `match has ${b.match.length} entries, batch is ${b.batch}×${b.length}`);
    checkIdInput(
      b,
      'feature',
      b.feature,
      wordFeatureCount(this.config.reader?.sentenceRecency ?? false),
      (v, i) => `word feature ${v} at ${i} is not a wordFeature id`,
    );
    checkIdInput(b, 'tag', b.tag, WORD_TAGS.length, (v, i) => `word tag ${v} at ${i} is not a WORD_TAGS index`);
    const rows = this.config.reader?.wordVectors?.rows ?? 1;
    checkIdInput(b, 'vector', b.vector, rows, (v, i) => `word vector row ${v} at ${i} is not below ${rows}`);
  }

  private spanFeeds(b: SpanBatch) {
    const { targets: _, ...feeds } = this.batchFeeds({ batch: b.batch, length: b.length, ids: b.ids, targets: b.ids });
    const dims = [b.batch, b.length];
    const ids = (values: ArrayLike<number> | undefined) =>
      values === undefined ? new BigInt64Array(b.batch * b.length) : BigInt64Array.from(Array.from(values), BigInt);
    return {
      ...feeds,
      match: { data: b.match, dims },
      word_feature: { data: ids(b.feature), dims },
      word_tag: { data: ids(b.tag), dims },
      word_vector: { data: ids(b.vector), dims },
    };
  }

  /** Start and end logits (B, T) each of the span graphs. */
  private spanBase(name: string) {
    const { g, w, hidden } = this.sequence(name, true);
    const both = matmul(hidden, transpose(w.get(SPAN_HEAD), [1, 0])); // (B, T, 2)
    const start = squeeze(slice(both, [0], [1], [2]), [2]); // (B, T)
    const end = squeeze(slice(both, [1], [2], [2]), [2]); // (B, T)
    return { g, w, start, end };
  }

  private buildSpanTrain(): CompiledGraph<string> {
    const { g, w, start, end } = this.spanBase('span_train');
    const [b, t] = start.shape;
    const pick = (logits: Tensor, bias: string, target: string) =>
      tokenLogProbs(
        reshape(add(logits, g.input(bias, 'float32', ['B', 'T'])), [b, 1, t]), // (B, 1, T)
        g.input(target, 'int64', ['B', 1]),
      ); // (B, 1)
    const logprobs = add(pick(start, 'start_bias', 'span_start'), pick(end, 'end_bias', 'span_end')); // (B, 1)
    const loss = reduceSum(mul(logprobs, g.input('row_weights', 'float32', ['B', 1])), [0, 1]);
    const grads = grad(loss, w.trainable);
    const outputs: Record<string, Tensor> = { loss, logprobs: squeeze(logprobs, [1]) };
    w.trainable.forEach((tensor, i) => (outputs[`grad:${tensor.name}`] = grads[i]));
    return this.runtime.compile(g, outputs);
  }

  private buildSpanLogits(): CompiledGraph<'start' | 'end'> {
    const { g, start, end } = this.spanBase('span_logits');
    return this.dynamicRuntime.compile(g, { start, end });
  }

  private biasFeed(b: TokenBatch) {
    const dims = [b.batch, b.length, this.config.vocabSize];
    return { logit_bias: { data: b.logitBias ?? new Float32Array(dims[0] * dims[1] * dims[2]), dims } };
  }

  private batchFeeds(b: TokenBatch) {
    const { cos, sin } = ropeTables(this.invFreq, 0, b.length);
    const dims = [b.batch, b.length];
    const width = 2 * this.invFreq.length;
    return {
      input_ids: { data: BigInt64Array.from(Array.from(b.ids), BigInt), dims },
      targets: { data: BigInt64Array.from(Array.from(b.targets), BigInt), dims },
      rope_cos: { data: cos, dims: [b.length, width] },
      rope_sin: { data: sin, dims: [b.length, width] },
    };
  }

  /**
   * Inputs shared by the full-sequence graphs, and the final hidden states (B, T, hidden). The span graphs also take
   * `match` (B, T), `word_feature` (B, T), `word_tag` (B, T) and `word_vector` (B, T); a reader without the exact-match
   * input, word features, word tags or word vectors takes them unused, so every reader is fed alike.
   */
  private sequence(name: string, spans = false) {
    const g = new Graph(name);
    const w = declareWeights(g, this.config, this.mode);
    const d = this.config.headDim;
    const ids = g.input('input_ids', 'int64', ['B', 'T']);
    const cos = g.input('rope_cos', 'float32', ['T', d]);
    const sin = g.input('rope_sin', 'float32', ['T', d]);
    const match = spans ? g.input('match', 'float32', ['B', 'T']) : undefined;
    const feature = spans ? g.input('word_feature', 'int64', ['B', 'T']) : undefined;
    const tag = spans ? g.input('word_tag', 'int64', ['B', 'T']) : undefined;
    const vector = spans ? g.input('word_vector', 'int64', ['B', 'T']) : undefined;
    const { hidden } = forward(this.config, w, ids, cos, sin, undefined, {
      match: this.config.reader?.exactMatch ? match : undefined,
      feature: this.config.reader?.wordFeatures ? feature : undefined,
      tag: this.config.reader?.wordTags ? tag : undefined,
      vector: this.config.reader?.wordVectors ? vector : undefined,
    });
    return { g, w, hidden };
  }

  /** The full-sequence graphs' inputs and their logits (B, T, V). */
  private base(name: string) {
    const { g, w, hidden } = this.sequence(name);
    return { g, w, logits: lmHead(this.config, w, hidden) };
  }

  private buildTrain(): CompiledGraph<string> {
    const { g, w, logits: free } = this.base('train');
    const targets = g.input('targets', 'int64', ['B', 'T']);
    const tokenWeights = g.input('token_weights', 'float32', ['B', 'T']);
    const logits = add(free, g.input('logit_bias', 'float32', ['B', 'T', this.config.vocabSize]));
    const logprobs = tokenLogProbs(logits, targets); // (B, T)
    const loss = reduceSum(mul(logprobs, tokenWeights), [0, 1]);
    const grads = grad(loss, w.trainable);
    const outputs: Record<string, Tensor> = { loss, logprobs, entropy: tokenEntropy(logits) };
    w.trainable.forEach((t, i) => (outputs[`grad:${t.name}`] = grads[i]));
    return this.runtime.compile(g, outputs);
  }

  private buildLogprobs(): CompiledGraph<'logprobs'> {
    const { g, logits } = this.base('logprobs');
    const targets = g.input('targets', 'int64', ['B', 'T']);
    const invTemperature = g.input('inv_temperature', 'float32', []);
    const bias = g.input('logit_bias', 'float32', ['B', 'T', this.config.vocabSize]);
    return this.runtime.compile(g, { logprobs: tokenLogProbs(add(mul(logits, invTemperature), bias), targets) });
  }

  private buildLogits(): CompiledGraph<'logits'> {
    const { g, logits } = this.base('logits');
    return this.runtime.compile(g, { logits });
  }

  /**
   * The decoding graphs. 'prefill': a batch of prompts with no cache. 'step': one new position per row, each row's
   * cache buffer (B, K, C, D) fed whole, zero-copy, with a bias (B, C) masking each row's unfilled positions and
   * each row's rotary tables (B, 1, 1, D), so rows of different lengths decode together. 'extend': T new positions
   * after a cache (a prompt that continues a cached prefix), rotary tables (T, D). Each outputs only the last
   * position's logits (B, 1, V) and the new positions' keys and values (B, K, T, D).
   */
  private buildDecode(kind: 'prefill' | 'step' | 'extend', mode: GraphWeightMode): CompiledGraph<string> {
    const { config } = this;
    const g = new Graph(kind === 'step' ? 'decode_step' : kind);
    const w = declareWeights(g, config, mode);
    // A step feeds one new position per row; fixing T = 1 lets the graph skip the causal mask.
    const ids = g.input('input_ids', 'int64', ['B', kind === 'step' ? 1 : 'T']);
    const ropeShape = kind === 'step' ? ['B', 1, 1, config.headDim] : ['T', config.headDim];
    const cos = g.input('rope_cos', 'float32', ropeShape);
    const sin = g.input('rope_sin', 'float32', ropeShape);
    const bias = kind === 'prefill' ? undefined : unsqueeze(g.input('past_bias', 'float32', ['B', 'C']), [1, 2, 3]);
    const past: PastKv[] | undefined = bias
      ? Array.from({ length: config.numLayers }, (_, l) => ({
          keys: g.input(`past_key.${l}`, 'float32', ['B', config.numKvHeads, 'C', config.headDim]),
          values: g.input(`past_value.${l}`, 'float32', ['B', config.numKvHeads, 'C', config.headDim]),
          bias,
        }))
      : undefined;
    const { hidden, newKeys, newValues } = forward(config, w, ids, cos, sin, past);
    const last = slice(hidden, [-1], [Infinity], [1]); // (B, 1, hidden)
    const outputs: Record<string, Tensor> = { logits: lmHead(config, w, last) };
    newKeys.forEach((k, l) => (outputs[`key.${l}`] = k));
    newValues.forEach((v, l) => (outputs[`value.${l}`] = v));
    return this.dynamicRuntime.compile(g, outputs);
  }
}
