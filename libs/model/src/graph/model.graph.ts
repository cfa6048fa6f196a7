/**
 * The Llama/Qwen2 decoder as an @fathom/tensor graph. Shapes: B batch, T new positions, P cached positions,
 * H attention heads, K key/value heads, R = H / K heads per key/value head, D head width, V vocabulary.
 */
import {
  add,
  causalMask,
  concat,
  div,
  embedding,
  exp,
  type Graph,
  matmul,
  maximum,
  mul,
  reduceMax,
  reduceMean,
  reduceSum,
  reshape,
  pow,
  softmax,
  sqrt,
  slice,
  sub,
  swiglu,
  type Tensor,
  transpose,
  unsqueeze,
  where,
} from '@fathom/tensor';
import type { ModelConfig } from '../config';
import { ModelError } from '../errors';
import type { LoraConfig } from '../lora';
import { loraSpecs } from '../lora';
import {
  type LinearModule,
  linearPrefix,
  linearShape,
  MATCH_EMBEDDING,
  WORD_VECTOR_PROJ,
  WORD_VECTORS,
  type ParamMap,
  paramSpecs,
  WORD_FEATURE_EMBEDDING,
  WORD_TAG_EMBEDDING,
} from '../params';

/**
 * Where a graph's weights come from. 'full': every parameter is a graph input (fed zero-copy each run, all
 * trainable). 'lora': the base is baked in as initializers (uploaded once per session) and only the adapters
 * are inputs.
 */
export type WeightMode = { kind: 'full' } | { kind: 'lora'; base: ParamMap; lora: LoraConfig };

/** How one graph holds its weights: a `WeightMode`, or every weight frozen in (inference-only graphs). */
export type GraphWeightMode = WeightMode | { kind: 'frozen'; base: ParamMap };

/** A graph's weights: parameter tensors by HF name, and the trainable inputs in declaration order. */
export interface GraphWeights {
  get(name: string): Tensor;
  /** y = x Wᵀ (+ b) (+ (alpha/rank) · x Aᵀ Bᵀ) for a layer's projection; x (..., in) → (..., out). */
  linear(x: Tensor, layer: number, module: LinearModule): Tensor;
  /**
   * Several projections of the same x. With frozen weights they run as one GEMM against a weight concatenated
   * (and transposed) on the host, which suits the small row counts of decoding; otherwise one `linear` each.
   */
  project(x: Tensor, layer: number, modules: readonly LinearModule[]): Tensor[];
  readonly trainable: readonly Tensor[];
}

export function declareWeights(g: Graph, config: ModelConfig, mode: GraphWeightMode): GraphWeights {
  const tensors = new Map<string, Tensor>();
  const trainable: Tensor[] = [];
  for (const spec of paramSpecs(config)) {
    if (mode.kind === 'full') {
      const t = g.input(spec.name, 'float32', spec.shape);
      if (!spec.frozen) trainable.push(t);
      tensors.set(spec.name, t);
    } else {
      tensors.set(spec.name, g.initializer(spec.name, 'float32', spec.shape, mode.base.get(spec.name)!));
    }
  }
  if (mode.kind === 'lora') {
    for (const spec of loraSpecs(config, mode.lora)) {
      const t = g.input(spec.name, 'float32', spec.shape);
      trainable.push(t);
      tensors.set(spec.name, t);
    }
  }
  const targets = new Set<LinearModule>(mode.kind === 'lora' ? mode.lora.targetModules : []);
  const scale = mode.kind === 'lora' ? mode.lora.alpha / mode.lora.rank : 0;
  const get = (name: string): Tensor => {
    const t = tensors.get(name);
    if (!t) throw new ModelError('INVALID_TENSOR', `graph weight '${name}' was not declared`);
    return t;
  };
  const linear = (x: Tensor, layer: number, module: LinearModule): Tensor => {
    const p = linearPrefix(layer, module);
    // HF stores Linear weights as (out, in); onnxruntime fuses this transpose into the MatMul.
    let y = matmul(x, transpose(get(`${p}.weight`), [1, 0]));
    if (tensors.has(`${p}.bias`)) y = add(y, get(`${p}.bias`));
    if (targets.has(module)) {
      const down = matmul(x, transpose(get(`${p}.lora_A.weight`), [1, 0])); // (..., rank)
      y = add(y, mul(matmul(down, transpose(get(`${p}.lora_B.weight`), [1, 0])), scale));
    }
    return y;
  };
  const project = (x: Tensor, layer: number, modules: readonly LinearModule[]): Tensor[] => {
    if (mode.kind !== 'frozen') return modules.map((m) => linear(x, layer, m));
    const { weight, bias, widths } = fuseProjections(config, mode.base, layer, modules);
    const name = `model.layers.${layer}.${modules.join('+')}`;
    const inp = weight.length / bias.length;
    let y = matmul(x, g.initializer(`${name}.weight`, 'float32', [inp, bias.length], weight)); // (..., Σ out)
    if (bias.some((v) => v !== 0)) y = add(y, g.initializer(`${name}.bias`, 'float32', [bias.length], bias));
    let start = 0;
    return widths.map((width) => slice(y, [start], [(start += width)], [y.rank - 1]));
  };
  return { get, trainable, linear, project };
}

/** Projections' weights side by side as one (in, Σ out) matrix, their biases (zeros where absent) as one vector. */
function fuseProjections(config: ModelConfig, base: ParamMap, layer: number, modules: readonly LinearModule[]) {
  const widths = modules.map((m) => linearShape(config, m)[0]);
  const inp = linearShape(config, modules[0])[1];
  const total = widths.reduce((a, b) => a + b, 0);
  const weight = new Float32Array(inp * total);
  const bias = new Float32Array(total);
  let offset = 0;
  modules.forEach((m, j) => {
    const p = linearPrefix(layer, m);
    const w = base.get(`${p}.weight`)!; // (out, in)
    for (let o = 0; o < widths[j]; o++) for (let i = 0; i < inp; i++) weight[i * total + offset + o] = w[o * inp + i];
    const b = base.get(`${p}.bias`);
    if (b) bias.set(b, offset);
    offset += widths[j];
  });
  return { weight, bias, widths };
}

/**
 * Rotates pairs (i, i + D/2) as HF's rotate_half does: x·cos + [x₂, x₁]·sin±, with cos = [c, c] and
 * sin± = [−s, s] (see `ropeTables`). x (B, heads, T, D); cos, sin± (T, D).
 */
function rope(x: Tensor, cos: Tensor, sinSigned: Tensor, headDim: number): Tensor {
  const half = headDim / 2;
  const swapped = concat([slice(x, [half], [headDim], [3]), slice(x, [0], [half], [3])], 3);
  return add(mul(x, cos), mul(swapped, sinSigned));
}

/**
 * RMSNorm written as x / sqrt(mean(x²) + eps) · weight, the pattern onnxruntime fuses into one
 * SimplifiedLayerNormalization kernel in inference graphs. x (..., hidden), weight (hidden).
 */
function rmsNorm(x: Tensor, weight: Tensor, eps: number): Tensor {
  return mul(div(x, sqrt(add(reduceMean(pow(x, 2), -1, true), eps))), weight);
}

/**
 * One layer's cache as the decoder stores it: keys and values (B, K, C, D) over the buffer's whole capacity C,
 * and an additive bias (B, 1, 1, 1, C) that is 0 at each row's filled positions and −1e9 beyond them.
 */
export interface PastKv {
  keys: Tensor;
  values: Tensor;
  bias: Tensor;
}

/** A reader's per-position inputs, each given only to a model whose `ReaderHeads` take it. */
export interface ReadInputs {
  /** (B, T) float, for the exact-match input: 1 at positions whose word occurs in the question, 0 elsewhere. */
  match?: Tensor;
  /** (B, T) int64, for word features: each position's word-feature id (`wordFeature`). */
  feature?: Tensor;
  /** (B, T) int64, for word tags: each position's part-of-speech tag (an index of `WORD_TAGS`). */
  tag?: Tensor;
  /** (B, T) int64, for word vectors: each position's row of `reader.word_vectors` (0: none). */
  vector?: Tensor;
}

export interface ForwardOutputs {
  /** Final-normed hidden states (B, T, hidden). */
  hidden: Tensor;
  /** Per layer, the new positions' rotated keys and values (B, K, T, D), the cache's layout. */
  newKeys: Tensor[];
  newValues: Tensor[];
}

/**
 * The decoder stack. ids (B, T) int64; cos, sin± (T, D) rotary tables of the new positions, or (B, 1, 1, D) when each
 * row of a one-position step sits at its own position; `past` per layer when decoding
 * with a cache (every new position attends to all P cached ones and causally to the new ones); `reads`, a reader's
 * inputs of a span graph (`ReadInputs`).
 */
export function forward(
  config: ModelConfig,
  w: GraphWeights,
  ids: Tensor,
  cos: Tensor,
  sin: Tensor,
  past?: readonly PastKv[],
  reads: ReadInputs = {},
): ForwardOutputs {
  const { numHeads: h, numKvHeads: k, headDim: d } = config;
  const r = h / k;
  const [b, t] = ids.shape; // named ('B', 'T'), or static where the graph fixes them (a decode step has T = 1)
  let x = embedding(w.get('model.embed_tokens.weight'), ids); // (B, T, hidden)
  const { match, feature, tag, vector } = reads;
  if (match) x = add(x, mul(unsqueeze(match, [2]), w.get(MATCH_EMBEDDING))); // (B, T, 1) · (hidden)
  if (feature) x = add(x, embedding(w.get(WORD_FEATURE_EMBEDDING), feature)); // (B, T, hidden)
  if (tag) x = add(x, embedding(w.get(WORD_TAG_EMBEDDING), tag)); // (B, T, hidden)
  if (vector) {
    const vectors = embedding(w.get(WORD_VECTORS), vector); // (B, T, dims)
    x = add(x, matmul(vectors, transpose(w.get(WORD_VECTOR_PROJ), [1, 0]))); // (B, T, hidden)
  }
  const newKeys: Tensor[] = [];
  const newValues: Tensor[] = [];
  for (let l = 0; l < config.numLayers; l++) {
    const p = `model.layers.${l}`;
    const normed = rmsNorm(x, w.get(`${p}.input_layernorm.weight`), config.rmsNormEps);
    const [qp, kp, vp] = w.project(normed, l, ['q_proj', 'k_proj', 'v_proj']);
    const q = rope(transpose(reshape(qp, [b, t, h, d]), [0, 2, 1, 3]), cos, sin, d); // (B, H, T, D)
    const kNew = rope(transpose(reshape(kp, [b, t, k, d]), [0, 2, 1, 3]), cos, sin, d); // (B, K, T, D)
    const vNew = transpose(reshape(vp, [b, t, k, d]), [0, 2, 1, 3]); // (B, K, T, D)
    newKeys.push(kNew);
    newValues.push(vNew);
    const attn = attention(reshape(q, [b, k, r, t, d]), unsqueeze(kNew, [2]), unsqueeze(vNew, [2]), d, past?.[l]); // (B, K, R, T, D)
    const merged = reshape(transpose(attn, [0, 3, 1, 2, 4]), [b, t, h * d]);
    x = add(x, w.linear(merged, l, 'o_proj'));
    const normed2 = rmsNorm(x, w.get(`${p}.post_attention_layernorm.weight`), config.rmsNormEps);
    const [gate, up] = w.project(normed2, l, ['gate_proj', 'up_proj']);
    x = add(x, w.linear(swiglu(gate, up), l, 'down_proj'));
  }
  return { hidden: rmsNorm(x, w.get('model.norm.weight'), config.rmsNormEps), newKeys, newValues };
}

/**
 * Grouped-query attention without materialising repeated heads: q (B, K, R, T, D) against k, v (B, K, 1, T, D)
 * broadcast over R. With a cache, past scores and new scores are normalised by one shared max and sum, so the
 * cache is never concatenated with the new keys.
 */
function attention(q: Tensor, k: Tensor, v: Tensor, d: number, past?: PastKv): Tensor {
  // Scaling q rather than the scores, and adding a (T, T) bias rather than selecting with Where, keeps the
  // big (B, K, R, T, T) tensors out of two elementwise ops and their gradients.
  const qs = mul(q, 1 / Math.sqrt(d));
  const raw = matmul(qs, transpose(k, [0, 1, 2, 4, 3])); // (B, K, R, T, T)
  // A single new position sees itself: no mask to build.
  const scores = k.shape[3] === 1 ? raw : add(raw, where(causalMask(q, k), q.graph.scalar(0, 'float32'), -1e9));
  if (!past) return matmul(softmax(scores, -1), v);
  // The cache is read in place: no concatenation with the new keys, no re-layout (the transpose fuses into the GEMM).
  const pastKt = transpose(unsqueeze(past.keys, [2]), [0, 1, 2, 4, 3]); // (B, K, 1, D, C)
  const pastV = unsqueeze(past.values, [2]); // (B, K, 1, C, D)
  const pastScores = add(matmul(qs, pastKt), past.bias); // (B, K, R, T, C)
  const m = maximum(reduceMax(scores, -1, true), reduceMax(pastScores, -1, true)); // (B, K, R, T, 1)
  const e = exp(sub(scores, m));
  const ePast = exp(sub(pastScores, m));
  const z = add(reduceSum(e, -1, true), reduceSum(ePast, -1, true));
  return div(add(matmul(e, v), matmul(ePast, pastV)), z);
}

/** Logits over the vocabulary: hidden (..., hidden) → (..., V), through lm_head or the tied embedding. */
export function lmHead(config: ModelConfig, w: GraphWeights, hidden: Tensor): Tensor {
  const head = w.get(config.tieWordEmbeddings ? 'model.embed_tokens.weight' : 'lm_head.weight');
  return matmul(hidden, transpose(head, [1, 0]));
}

/**
 * Rotary tables for positions [start, start + length), each (length, D): cos = [c, c] and sin± = [−s, s] with
 * c, s the cosine and sine of position · inverse frequency.
 */
export function ropeTables(
  invFreq: Float64Array,
  start: number,
  length: number,
): { cos: Float32Array; sin: Float32Array } {
  const half = invFreq.length;
  const d = 2 * half;
  const cos = new Float32Array(length * d);
  const sin = new Float32Array(length * d);
  for (let t = 0; t < length; t++) {
    for (let i = 0; i < half; i++) {
      const angle = (start + t) * invFreq[i];
      cos[t * d + i] = cos[t * d + i + half] = Math.cos(angle);
      sin[t * d + i] = -Math.sin(angle);
      sin[t * d + i + half] = Math.sin(angle);
    }
  }
  return { cos, sin };
}
