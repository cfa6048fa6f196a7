/**
 * Composed ops, built only from primitives so that autodiff needs no rule for them. Shapes in comments use
 * B (batch), H (heads), T (query positions), S (key positions), D (head or model width), V (vocabulary).
 */
import { type DType, isFloat } from './dtype';
import { TensorError } from './errors';
import type { Tensor } from './graph';
import {
  add,
  cast,
  concat,
  constantOfShape,
  div,
  erf,
  exp,
  expand,
  gather,
  gatherElements,
  logSoftmax,
  logicalAnd,
  matmul,
  maximum,
  mul,
  reciprocal,
  reduceMean,
  reduceSum,
  reshape,
  shapeOf,
  sigmoid,
  softmax,
  sqrt,
  squeeze,
  sub,
  transpose,
  trilu,
  unsqueeze,
  where,
} from './ops';

/** RMSNorm over the last axis: x / sqrt(mean(x²) + eps) * weight. x (..., D), weight (D). */
export function rmsNorm(x: Tensor, weight: Tensor, eps = 1e-6): Tensor {
  const inv = reciprocal(sqrt(add(reduceMean(mul(x, x), -1, true), eps)));
  return mul(mul(x, inv), weight);
}

/** SiLU (swish): x * sigmoid(x). */
export const silu = (x: Tensor): Tensor => mul(x, sigmoid(x));

/** SwiGLU gating: silu(gate) * up, the inner product of a Llama MLP before its down projection. */
export const swiglu = (gate: Tensor, up: Tensor): Tensor => mul(silu(gate), up);

/** Exact GELU: 0.5 x (1 + erf(x / sqrt 2)). */
export const gelu = (x: Tensor): Tensor => mul(mul(x, 0.5), add(erf(mul(x, Math.SQRT1_2)), 1));

/** x @ w (+ b). x (..., in), w (in, out), b (out). */
export function linear(x: Tensor, w: Tensor, b?: Tensor): Tensor {
  const y = matmul(x, w);
  return b ? add(y, b) : y;
}

/** Rows of `table` (V, D) at `ids` (...) -> (..., D). */
export const embedding = (table: Tensor, ids: Tensor): Tensor => gather(table, ids, 0);

/**
 * log p(target) under softmax(logits): logits (..., V) float, targets (...) int -> (...). This is what GRPO ratios
 * and the log-prob graph need.
 */
export function tokenLogProbs(logits: Tensor, targets: Tensor): Tensor {
  const picked = gatherElements(logSoftmax(logits, -1), unsqueeze(targets, [-1]), -1); // (..., 1)
  return squeeze(picked, [-1]);
}

/**
 * Entropy of softmax(logits) at every position, −Σ p·log p over the last axis: logits (..., V) float -> (...).
 * Built on a LogSoftmax of the same logits as `tokenLogProbs` (an extra pass over (..., V) where a graph holds both).
 */
export function tokenEntropy(logits: Tensor): Tensor {
  const lsm = logSoftmax(logits, -1);
  return mul(reduceSum(mul(exp(lsm), lsm), [-1]), -1);
}

/**
 * Mean negative log-likelihood over positions where mask is 1: logits (..., V), targets (...) int, mask (...) float
 * of 0/1 (or weights) -> scalar. An all-zero mask gives 0, not NaN.
 */
export function maskedCrossEntropy(logits: Tensor, targets: Tensor, mask: Tensor): Tensor {
  const lp = tokenLogProbs(logits, targets);
  const all = lp.shape.map((_, i) => i);
  const total = reduceSum(mul(lp, mask), all);
  return div(mul(total, -1), maximum(reduceSum(mask, all), 1));
}

/**
 * bool (T, S): query i may attend to key j when j <= i + (S - T). With S = T this is the causal lower triangle;
 * with a KV cache (S past + T new positions) each new query also sees the whole past. q (..., T, D), k (..., S, D).
 */
export function causalMask(q: Tensor, k: Tensor): Tensor {
  const t = shapeOf(q, q.rank - 2, q.rank - 1); // (1)
  const s = shapeOf(k, k.rank - 2, k.rank - 1); // (1)
  const ones = constantOfShape(concat([t, s], 0), 1, 'float32', [q.shape[q.rank - 2], k.shape[k.rank - 2]]);
  const offset = squeeze(sub(s, t), [0]);
  return cast(trilu(ones, false, offset), 'bool');
}

/** The bias of a masked score, chosen so that score + bias stays finite in the dtype. */
const maskFill = (dtype: DType): number => (dtype === 'float16' ? -30000 : -1e9);

/**
 * Scaled dot-product attention with a causal mask: q (B, H, T, D), k and v (B, H, S, D) -> (B, H, T, D).
 * `mask`, if given, is bool and broadcasts to (B, H, T, S) (e.g. key padding as (B, 1, 1, S)); positions false in
 * it or in the causal mask are excluded.
 */
export function causalAttention(q: Tensor, k: Tensor, v: Tensor, mask?: Tensor): Tensor {
  if (!isFloat(q.dtype)) throw new TensorError('DTYPE_MISMATCH', `attention needs float q, got ${q}`);
  const d = q.shape[q.rank - 1];
  if (typeof d !== 'number') throw new TensorError('SHAPE_MISMATCH', `attention head dim must be static: ${q}`);
  // Scaling q (B, H, T, D) rather than the scores (B, H, T, S) and adding a small bias rather than selecting on the
  // full score tensor keeps both the forward and the backward pass off extra (B, H, T, S) elementwise work.
  const scores = matmul(mul(q, 1 / Math.sqrt(d)), transpose(k, [0, 1, 3, 2])); // (B, H, T, S)
  const causal = causalMask(q, k); // (T, S)
  const allowed = mask ? logicalAnd(causal, mask) : causal;
  const bias = where(allowed, q.graph.scalar(0, q.dtype), maskFill(q.dtype)); // (T, S) or (B, 1, T, S)
  return matmul(softmax(add(scores, bias), -1), v); // (B, H, T, D)
}

/** Grouped-query attention helper: (B, Hkv, S, D) -> (B, Hkv * rep, S, D), each head repeated rep times. */
export function repeatHeads(x: Tensor, rep: number): Tensor {
  if (rep === 1) return x;
  const [b, h, s, d] = x.shape;
  const expanded = expand(unsqueeze(x, [2]), [b, h, rep, s, d]); // (B, Hkv, rep, S, D)
  if (typeof h !== 'number') throw new TensorError('SHAPE_MISMATCH', `repeatHeads needs a static head count: ${x}`);
  return reshape(expanded, [b, h * rep, s, d]);
}
