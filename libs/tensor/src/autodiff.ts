/**
 * Reverse-mode autodiff over the graph: one gradient rule per primitive op, all in `gradientRules`, and a reverse
 * topological walk that emits the backward pass as ordinary ONNX nodes in the same graph.
 */
import { isFloat } from './dtype';
import { TensorError } from './errors';
import type { Node, Tensor } from './graph';
import {
  add,
  cast,
  concat,
  div,
  equal,
  exp,
  expandLike,
  gemm,
  greaterOrEqual,
  int64s,
  log,
  matmul,
  mul,
  neg,
  pad,
  pow,
  reduceSum,
  reshape,
  reshapeLike,
  scatterElementsAdd,
  scatterNDAdd,
  shapeOf,
  sizeOf,
  split,
  sub,
  sumToShape,
  transpose,
  trilu,
  unsqueeze,
  where,
  zerosLike,
} from './ops';

/**
 * The largest table (rows of a 2-D Gather, e.g. a vocabulary) whose gradient is taken as a one-hot matrix product:
 * exact with any thread count, at the cost of a (positions × rows) one-hot (4 MB for 4,096 positions of 260 rows).
 * Larger tables scatter-add, which on the CPU is exact with one intra-op thread only.
 */
export const ONE_HOT_GATHER_ROWS = 8192;
import { sameShape, shapeToString } from './shape';

/** What a rule sees: the node, its inputs x, outputs y, and the adjoint of each output (null when none flows). */
export interface GradContext {
  readonly node: Node;
  readonly x: readonly Tensor[];
  readonly y: readonly Tensor[];
  readonly dy: readonly (Tensor | null)[];
  /** The adjoint of the first output; every single-output op uses this. */
  readonly g: Tensor;
}

/** Returns one gradient per input of the node, or null where the input gets none (indices, shapes, masks). */
export type GradRule = (ctx: GradContext) => (Tensor | null)[];

/** The value of a constant int64 input (axes, starts, perms); rules need them to invert the op. */
function constInts(t: Tensor): number[] {
  const init = t.graph.initializers.get(t.name);
  if (!init) throw new TensorError('NOT_DIFFERENTIABLE', `'${t.name}' must be a constant to differentiate`);
  return Array.from(init.data as ArrayLike<number | bigint>, Number);
}

/** The value of a one-element float constant (a literal exponent), or undefined when `t` is computed. */
function constScalar(t: Tensor): number | undefined {
  const init = t.graph.initializers.get(t.name);
  return init && init.data.length === 1 ? Number((init.data as ArrayLike<number>)[0]) : undefined;
}

const lastTwoSwapped = (t: Tensor): Tensor => transpose(t, [...Array(t.rank - 2).keys(), t.rank - 1, t.rank - 2]);

const intsAttr = (node: Node, name: string): readonly number[] => (node.attrs[name] as { ints: number[] }).ints;
const intAttr = (node: Node, name: string): number => (node.attrs[name] as { int: number }).int;

function reduceGrad({ node, x, y, g }: GradContext): Tensor {
  const keep = intAttr(node, 'keepdims') === 1 ? g : unsqueeze(g, constInts(x[1]));
  return node.op === 'ReduceMax'
    ? where(equal(x[0], expandLike(reshapeLike(y[0], keep), x[0])), expandLike(keep, x[0]), 0)
    : expandLike(keep, x[0]);
}

const noGradient: GradRule = ({ x }) => x.map(() => null);

/** The gradient table. An op missing here cannot be differentiated through; `grad` says which. */
export const gradientRules: Readonly<Record<string, GradRule>> = {
  Add: ({ x: [a, b], g }) => [sumToShape(g, a.shape), sumToShape(g, b.shape)],
  Sub: ({ x: [a, b], g }) => [sumToShape(g, a.shape), sumToShape(neg(g), b.shape)],
  Mul: ({ x: [a, b], g }) => [sumToShape(mul(g, b), a.shape), sumToShape(mul(g, a), b.shape)],
  Div: ({ x: [a, b], y: [y], g }) => [sumToShape(div(g, b), a.shape), sumToShape(neg(div(mul(g, y), b)), b.shape)],
  Pow: ({ x: [a, b], y: [y], g }) => {
    // A literal exponent (x² in RMSNorm) folds into the rule: 2·x·g takes no Pow in the backward pass. The
    // exponent's own gradient is built either way and pruned when nothing asks for it.
    const e = constScalar(b);
    const slope = e === undefined ? mul(b, pow(a, sub(b, 1))) : e === 2 ? mul(a, 2) : mul(pow(a, e - 1), e);
    return [sumToShape(mul(g, slope), a.shape), sumToShape(mul(g, mul(y, log(a))), b.shape)];
  },
  Max: ({ x: [a, b], g }) => {
    const aWins = greaterOrEqual(a, b);
    return [sumToShape(where(aWins, g, 0), a.shape), sumToShape(where(aWins, 0, g), b.shape)];
  },
  Neg: ({ g }) => [neg(g)],
  Exp: ({ y: [y], g }) => [mul(g, y)],
  // dx = y ⊙ (g − Σ g⊙y): two passes over the scores and only the output kept from the forward pass.
  Softmax: ({ node, y: [y], g }) => [mul(y, sub(g, reduceSum(mul(g, y), intAttr(node, 'axis'), true)))],
  // dx = g − softmax(x) · Σ g, with softmax(x) = exp(y).
  LogSoftmax: ({ node, y: [y], g }) => [sub(g, mul(exp(y), reduceSum(g, intAttr(node, 'axis'), true)))],
  Log: ({ x: [a], g }) => [div(g, a)],
  Sqrt: ({ y: [y], g }) => [div(mul(g, 0.5), y)],
  Reciprocal: ({ y: [y], g }) => [neg(mul(g, mul(y, y)))],
  Tanh: ({ y: [y], g }) => [mul(g, sub(1, mul(y, y)))],
  Sigmoid: ({ y: [y], g }) => [mul(g, mul(y, sub(1, y)))],
  Erf: ({ x: [a], g }) => [mul(g, mul(exp(neg(mul(a, a))), 2 / Math.sqrt(Math.PI)))],
  Where: ({ x: [c, a, b], g }) => [null, sumToShape(where(c, g, 0), a.shape), sumToShape(where(c, 0, g), b.shape)],
  Identity: ({ g }) => [g],
  StopGradient: noGradient,
  Cast: ({ x: [a], g }) => [isFloat(a.dtype) ? cast(g, a.dtype) : null],
  MatMul: ({ x: [a, b], g }) => {
    const ga = sumToShape(matmul(g, lastTwoSwapped(b)), a.shape);
    if (b.rank === 2 && a.rank > 2) {
      // (..., K) rows flattened so the weight gradient is one GEMM instead of a batch of them and a sum.
      const [k, n] = b.shape;
      return [ga, gemm(reshape(a, [-1, k]), reshape(g, [-1, n]), true, false)];
    }
    return [ga, sumToShape(matmul(lastTwoSwapped(a), g), b.shape)];
  },
  ReduceSum: (ctx) => [reduceGrad(ctx), null],
  ReduceMean: (ctx) => [div(reduceGrad(ctx), cast(div(sizeOf(ctx.x[0]), sizeOf(ctx.y[0])), ctx.g.dtype)), null],
  ReduceMax: (ctx) => [reduceGrad(ctx), null],
  Reshape: ({ x: [a], g }) => [reshapeLike(g, a), null],
  Unsqueeze: ({ x: [a], g }) => [reshapeLike(g, a), null],
  Squeeze: ({ x: [a], g }) => [reshapeLike(g, a), null],
  Transpose: ({ node, g }) => {
    const perm = intsAttr(node, 'perm');
    return [
      transpose(
        g,
        perm.map((_, i) => perm.indexOf(i)),
      ),
    ];
  },
  Slice: ({ x: [a, starts, ends, axes], g }) => {
    // Pads are known statically on one side of each sliced axis; the other side is whatever the shapes leave.
    const rank = a.rank;
    const known = new Array<number>(2 * rank).fill(0);
    const beforeKnown = new Array<boolean>(rank).fill(true);
    const s = constInts(starts);
    const e = constInts(ends);
    constInts(axes).forEach((axis, i) => {
      const dim = a.shape[axis];
      const start = s[i] < 0 && typeof dim === 'number' ? Math.max(s[i] + dim, 0) : s[i];
      if (start >= 0) known[axis] = start;
      else if (e[i] >= Number.MAX_SAFE_INTEGER) [beforeKnown[axis], known[rank + axis]] = [false, 0];
      else if (e[i] < 0) [beforeKnown[axis], known[rank + axis]] = [false, -e[i]];
      else throw new TensorError('NOT_DIFFERENTIABLE', `Slice [${s[i]}:${e[i]}] of ${a} on axis ${axis}`);
    });
    const total = sub(shapeOf(a), shapeOf(g));
    const before = where(
      a.graph.constant(beforeKnown.map(Number), 'bool', [rank]),
      int64s(a.graph, known.slice(0, rank)),
      sub(total, int64s(a.graph, known.slice(rank))),
    );
    return [pad(g, concat([before, sub(total, before)], 0), a.shape), null, null, null];
  },
  Concat: ({ node, x, g }) => {
    const axis = intAttr(node, 'axis');
    return split(
      g,
      concat(
        x.map((t) => shapeOf(t, axis, axis + 1)),
        0,
      ),
      axis,
      x.map((t) => t.shape),
    );
  },
  Split: ({ node, y, dy }) => [
    concat(
      y.map((t, i) => dy[i] ?? zerosLike(t)),
      intAttr(node, 'axis'),
    ),
    null,
  ],
  Gather: ({ node, x: [data, indices], g }) => {
    if (intAttr(node, 'axis') !== 0)
      throw new TensorError('NOT_DIFFERENTIABLE', `Gather on axis ${intAttr(node, 'axis')} (only axis 0)`);
    const ids = indices.dtype === 'int64' ? indices : cast(indices, 'int64');
    const [rows, width] = data.shape;
    if (data.rank === 2 && typeof rows === 'number' && rows <= ONE_HOT_GATHER_ROWS) {
      // onehot(ids)ᵀ · g: the gradient of an embedding lookup as one matrix product. onnxruntime's ScatterND with
      // reduction "add" runs in parallel on the CPU without ordering its writes: with two or more intra-op threads
      // it lost updates to repeated ids (embedding gradients off by up to 4%, different on every run).
      const oneHot = cast(equal(reshape(ids, [-1, 1]), int64s(data.graph, [...Array(rows).keys()])), data.dtype);
      return [gemm(oneHot, reshape(g, [-1, width]), true, false), null];
    }
    return [scatterNDAdd(zerosLike(data), unsqueeze(ids, [-1]), g), null];
  },
  GatherElements: ({ node, x: [data, indices], g }) => {
    const idx = indices.dtype === 'int64' ? indices : cast(indices, 'int64');
    return [scatterElementsAdd(zerosLike(data), idx, g, intAttr(node, 'axis')), null];
  },
  Expand: ({ x: [a], g }) => [sumToShape(g, a.shape), null],
  Trilu: ({ node, x: [, k], g }) => [trilu(g, intAttr(node, 'upper') === 1, k), null],
  Shape: noGradient,
  Size: noGradient,
  ConstantOfShape: noGradient,
  Equal: noGradient,
  Less: noGradient,
  LessOrEqual: noGradient,
  Greater: noGradient,
  GreaterOrEqual: noGradient,
  And: noGradient,
  Not: noGradient,
};

function accumulate(parts: Tensor[]): Tensor {
  return parts.reduce((acc, t) => add(acc, t));
}

/**
 * Gradients of a scalar `loss` with respect to each tensor of `wrt`, as new tensors of the same graph (same order
 * and shapes as `wrt`). Contributions to a tensor used more than once are summed. A `wrt` tensor the loss does not
 * depend on gets zeros. Throws NO_GRADIENT_RULE naming the op when the path from `wrt` to `loss` crosses an op
 * without a rule.
 */
export function grad(loss: Tensor, wrt: readonly Tensor[]): Tensor[] {
  const graph = loss.graph;
  if (!isFloat(loss.dtype) || loss.shape.some((d) => d !== 1))
    throw new TensorError('NOT_DIFFERENTIABLE', `loss must be a float scalar, got ${loss}`);
  for (const w of wrt) {
    if (w.graph !== graph) throw new TensorError('INVALID_GRAPH', `'${w.name}' belongs to another graph`);
    if (!isFloat(w.dtype)) throw new TensorError('NOT_DIFFERENTIABLE', `cannot differentiate wrt ${w}`);
  }

  const dependsOnWrt = new Set<Tensor>(wrt);
  const nodes = graph.nodes.slice(0, (loss.producer?.index ?? -1) + 1);
  for (const node of nodes)
    if (node.inputs.some((t) => t && dependsOnWrt.has(t))) for (const t of node.outputs) dependsOnWrt.add(t);

  const adjoints = new Map<Tensor, Tensor[]>([[loss, [graph.constant([1], loss.dtype, loss.shape as number[])]]]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i];
    const dy = node.outputs.map((t) => {
      const parts = adjoints.get(t);
      return parts ? accumulate(parts) : null;
    });
    if (dy.every((d) => d === null) || !node.outputs.some((t) => dependsOnWrt.has(t))) continue;
    const rule = gradientRules[node.op];
    if (!rule)
      throw new TensorError(
        'NO_GRADIENT_RULE',
        `op '${node.op}' (producing '${node.outputs[0].name}') is on the path to the loss and has no gradient rule`,
      );
    const grads = rule({ node, x: node.inputs as Tensor[], y: node.outputs, dy, g: dy.find((d) => d !== null)! });
    node.inputs.forEach((input, k) => {
      const gk = grads[k];
      if (!input || !gk || !dependsOnWrt.has(input)) return;
      if (gk.rank !== input.rank || !sameShape(gk.shape, input.shape))
        throw new TensorError(
          'SHAPE_MISMATCH',
          `gradient rule of '${node.op}' gave ${shapeToString(gk.shape)} for input ${input}`,
        );
      const list = adjoints.get(input);
      if (list) list.push(gk);
      else adjoints.set(input, [gk]);
    });
  }
  return wrt.map((w) => {
    const parts = adjoints.get(w);
    return parts ? accumulate(parts) : zerosLike(w);
  });
}
