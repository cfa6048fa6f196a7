/**
 * The primitive ops. Each maps to one standard ONNX op (opset 18) and has exactly one entry in the gradient table
 * (autodiff.ts). Shapes are inferred symbolically when a node is built, so mistakes surface at build time.
 */
import { type DType, isFloat, onnxDataType } from './dtype';
import { TensorError } from './errors';
import { type Graph, Tensor, toHostArray } from './graph';
import {
  type Dim,
  type Shape,
  broadcastShapes,
  dimProduct,
  dimQuotient,
  normAxis,
  normDim,
  sameDim,
  shapeToString,
} from './shape';

/** A tensor, or a plain number that becomes a scalar constant of the other operand's dtype. */
export type TensorLike = Tensor | number;

const INT64_MAX = 9223372036854775807n;

function fail(op: string, detail: string): never {
  throw new TensorError('SHAPE_MISMATCH', `${op}: ${detail}`);
}

function needFloat(op: string, ...ts: Tensor[]): void {
  for (const t of ts)
    if (!isFloat(t.dtype)) throw new TensorError('DTYPE_MISMATCH', `${op} needs a float tensor, got ${t}`);
}

function sameDtype(op: string, ...ts: Tensor[]): void {
  for (const t of ts)
    if (t.dtype !== ts[0].dtype) throw new TensorError('DTYPE_MISMATCH', `${op}: ${ts.map(String).join(' vs ')}`);
}

function lift(op: string, a: TensorLike, b: TensorLike): [Tensor, Tensor] {
  if (a instanceof Tensor && b instanceof Tensor) return [a, b];
  if (a instanceof Tensor) return [a, a.graph.scalar(b as number, a.dtype)];
  if (b instanceof Tensor) return [b.graph.scalar(a, b.dtype), b];
  throw new TensorError('INVALID_GRAPH', `${op} needs at least one tensor operand`);
}

function one(graph: Graph, op: string, inputs: (Tensor | null)[], dtype: DType, shape: Shape, attrs = {}): Tensor {
  return graph.addNode(op, inputs, [{ dtype, shape }], attrs)[0];
}

/** int64 [n] constant, the form ONNX wants for axes, starts, pads and shapes. */
export function int64s(graph: Graph, values: readonly (number | bigint)[]): Tensor {
  return graph.constant(
    values.map((v) => (typeof v === 'bigint' ? v : v === Infinity ? INT64_MAX : BigInt(v))),
    'int64',
    [values.length],
  );
}

// ---------------------------------------------------------------- elementwise

function binary(op: string, a: TensorLike, b: TensorLike, float: boolean): Tensor {
  const [x, y] = lift(op, a, b);
  sameDtype(op, x, y);
  if (float) needFloat(op, x);
  return one(x.graph, op, [x, y], x.dtype, broadcastShapes(op, x.shape, y.shape));
}

export const add = (a: TensorLike, b: TensorLike): Tensor => binary('Add', a, b, false);
export const sub = (a: TensorLike, b: TensorLike): Tensor => binary('Sub', a, b, false);
export const mul = (a: TensorLike, b: TensorLike): Tensor => binary('Mul', a, b, false);
export const div = (a: TensorLike, b: TensorLike): Tensor => binary('Div', a, b, false);
/** a ** b elementwise (float). */
export const pow = (a: TensorLike, b: TensorLike): Tensor => binary('Pow', a, b, true);
/** Elementwise maximum (ONNX Max with two inputs); on ties the gradient goes to `a`. */
export const maximum = (a: TensorLike, b: TensorLike): Tensor => binary('Max', a, b, false);

function unary(op: string, x: Tensor, float = true): Tensor {
  if (float) needFloat(op, x);
  return one(x.graph, op, [x], x.dtype, x.shape);
}

export const neg = (x: Tensor): Tensor => unary('Neg', x, false);
export const exp = (x: Tensor): Tensor => unary('Exp', x);
export const log = (x: Tensor): Tensor => unary('Log', x);
export const sqrt = (x: Tensor): Tensor => unary('Sqrt', x);
export const reciprocal = (x: Tensor): Tensor => unary('Reciprocal', x);
export const tanh = (x: Tensor): Tensor => unary('Tanh', x);
export const sigmoid = (x: Tensor): Tensor => unary('Sigmoid', x);
export const erf = (x: Tensor): Tensor => unary('Erf', x);

/** Passes x through unchanged but blocks gradients (serialised as ONNX Identity). */
export const detach = (x: Tensor): Tensor => one(x.graph, 'StopGradient', [x], x.dtype, x.shape);

function compare(op: string, a: TensorLike, b: TensorLike): Tensor {
  const [x, y] = lift(op, a, b);
  sameDtype(op, x, y);
  return one(x.graph, op, [x, y], 'bool', broadcastShapes(op, x.shape, y.shape));
}

export const equal = (a: TensorLike, b: TensorLike): Tensor => compare('Equal', a, b);
export const less = (a: TensorLike, b: TensorLike): Tensor => compare('Less', a, b);
export const lessOrEqual = (a: TensorLike, b: TensorLike): Tensor => compare('LessOrEqual', a, b);
export const greater = (a: TensorLike, b: TensorLike): Tensor => compare('Greater', a, b);
export const greaterOrEqual = (a: TensorLike, b: TensorLike): Tensor => compare('GreaterOrEqual', a, b);

export function logicalAnd(a: Tensor, b: Tensor): Tensor {
  if (a.dtype !== 'bool' || b.dtype !== 'bool') throw new TensorError('DTYPE_MISMATCH', `And: ${a} and ${b}`);
  return one(a.graph, 'And', [a, b], 'bool', broadcastShapes('And', a.shape, b.shape));
}

export function logicalNot(x: Tensor): Tensor {
  if (x.dtype !== 'bool') throw new TensorError('DTYPE_MISMATCH', `Not: ${x}`);
  return one(x.graph, 'Not', [x], 'bool', x.shape);
}

/** cond ? a : b elementwise, all three broadcast together. */
export function where(cond: Tensor, a: TensorLike, b: TensorLike): Tensor {
  if (cond.dtype !== 'bool') throw new TensorError('DTYPE_MISMATCH', `Where needs a bool condition, got ${cond}`);
  const [x, y] = lift('Where', a, b);
  sameDtype('Where', x, y);
  return one(cond.graph, 'Where', [cond, x, y], x.dtype, broadcastShapes('Where', cond.shape, x.shape, y.shape));
}

export function cast(x: Tensor, dtype: DType): Tensor {
  return one(x.graph, 'Cast', [x], dtype, x.shape, { to: { int: onnxDataType[dtype] } });
}

// ---------------------------------------------------------------- matmul

/** Batched matrix product (..., M, K) @ (..., K, N) -> (..., M, N); batch dims broadcast; both ranks >= 2. */
export function matmul(a: Tensor, b: Tensor): Tensor {
  sameDtype('MatMul', a, b);
  if (a.rank < 2 || b.rank < 2) fail('MatMul', `needs rank >= 2, got ${a} and ${b}`);
  const [m, k] = a.shape.slice(-2);
  const [k2, n] = b.shape.slice(-2);
  if (!sameDim(k, k2)) fail('MatMul', `inner dims differ: ${a} @ ${b}`);
  const batch = broadcastShapes('MatMul', a.shape.slice(0, -2), b.shape.slice(0, -2));
  return one(a.graph, 'MatMul', [a, b], a.dtype, [...batch, m, n]);
}

// ---------------------------------------------------------------- reductions

function reduce(op: string, x: Tensor, axes: number | readonly number[], keepdims: boolean): Tensor {
  const list = (typeof axes === 'number' ? [axes] : [...axes]).map((a) => normAxis(op, a, x.rank));
  // ONNX reads empty axes as "reduce everything"; demanding explicit axes keeps the inferred shape honest.
  if (list.length === 0) fail(op, `needs at least one axis, got none for ${x}`);
  const shape: Dim[] = [];
  x.shape.forEach((d, i) => {
    if (!list.includes(i)) shape.push(d);
    else if (keepdims) shape.push(1);
  });
  return one(x.graph, op, [x, int64s(x.graph, list)], x.dtype, shape, { keepdims: { int: keepdims ? 1 : 0 } });
}

export const reduceSum = (x: Tensor, axes: number | readonly number[], keepdims = false): Tensor =>
  reduce('ReduceSum', x, axes, keepdims);
export const reduceMean = (x: Tensor, axes: number | readonly number[], keepdims = false): Tensor =>
  reduce('ReduceMean', x, axes, keepdims);
/** Maximum over axes; on ties every maximal element receives the full gradient. */
export const reduceMax = (x: Tensor, axes: number | readonly number[], keepdims = false): Tensor =>
  reduce('ReduceMax', x, axes, keepdims);

// ---------------------------------------------------------------- normalisation

function normalise(op: string, x: Tensor, axis: number): Tensor {
  needFloat(op, x);
  return one(x.graph, op, [x], x.dtype, x.shape, { axis: { int: normAxis(op, axis, x.rank) } });
}

/**
 * softmax along `axis` as one ONNX Softmax: one pass forward and, through its own gradient rule, two backward,
 * where the composed max/exp/sum/div form takes five and keeps its intermediates alive for the backward pass.
 */
export const softmax = (x: Tensor, axis = -1): Tensor => normalise('Softmax', x, axis);
/** log(softmax(x)) along `axis` as one ONNX LogSoftmax (numerically stable, one pass). */
export const logSoftmax = (x: Tensor, axis = -1): Tensor => normalise('LogSoftmax', x, axis);

// ---------------------------------------------------------------- shape ops

/** ONNX Shape of x, optionally only axes [start, end): int64 [n]. */
export function shapeOf(x: Tensor, start = 0, end = x.rank): Tensor {
  return one(x.graph, 'Shape', [x], 'int64', [end - start], { start: { int: start }, end: { int: end } });
}

/** The run-time size of a named dim as int64 [1], read from `ref` or from any graph input that carries it. */
function dimTensor(d: Dim, ref: Tensor): Tensor {
  const graph = ref.graph;
  if (typeof d === 'number') return int64s(graph, [d]);
  for (const t of [ref, ...graph.inputs]) {
    const i = t.shape.findIndex((s) => sameDim(s, d));
    if (i >= 0) return shapeOf(t, i, i + 1);
  }
  const parts = String(normDim(d)).split('*');
  if (parts.length > 1)
    return parts.map((p) => dimTensor(/^\d+$/.test(p) ? Number(p) : p, ref)).reduce((a, b) => mul(a, b));
  throw new TensorError('INVALID_GRAPH', `dim '${d}' is carried by neither ${ref} nor any graph input`);
}

/** An int64 [rank] tensor holding `dims` at run time; -1 passes through (Reshape infers it). */
export function shapeTensor(dims: Shape, ref: Tensor): Tensor {
  if (dims.every((d) => typeof d === 'number')) return int64s(ref.graph, dims as number[]);
  const parts = dims.map((d) => dimTensor(d, ref));
  return concat(parts, 0);
}

/**
 * Reshape to `dims`: numbers, named dims (resolved at run time from x or the graph inputs) and at most one -1.
 * A named dim equal to x's dim at the same position costs nothing (ONNX's copy-dim 0).
 */
export function reshape(x: Tensor, dims: readonly Dim[]): Tensor {
  const inferred = dims.filter((d) => d === -1).length;
  if (inferred > 1) fail('Reshape', `at most one -1 in ${shapeToString(dims)}`);
  const known = dims.filter((d) => d !== -1);
  const outShape = dims.map((d) => {
    if (d !== -1) return normDim(d);
    const q = dimQuotient(dimProduct(x.shape), dimProduct(known));
    if (q === undefined) fail('Reshape', `cannot infer -1 reshaping ${x} to ${shapeToString(dims)}`);
    return q;
  });
  if (inferred === 0 && dimQuotient(dimProduct(x.shape), dimProduct(known)) !== 1)
    fail('Reshape', `${x} has a different size than ${shapeToString(dims)}`);
  const target = dims.map((d, i) => (typeof d === 'string' && i < x.rank && sameDim(d, x.shape[i]) ? 0 : d));
  return one(x.graph, 'Reshape', [x, shapeTensor(target, x)], x.dtype, outShape);
}

/** Permute axes; default reverses them. */
export function transpose(x: Tensor, perm?: readonly number[]): Tensor {
  const p = perm ?? x.shape.map((_, i) => x.rank - 1 - i);
  if (p.length !== x.rank || [...p].sort().some((v, i) => v !== i)) fail('Transpose', `bad perm [${p}] for ${x}`);
  return one(
    x.graph,
    'Transpose',
    [x],
    x.dtype,
    p.map((i) => x.shape[i]),
    { perm: { ints: p } },
  );
}

export function unsqueeze(x: Tensor, axes: readonly number[]): Tensor {
  const rank = x.rank + axes.length;
  const list = axes.map((a) => normAxis('Unsqueeze', a, rank));
  const shape: Dim[] = [];
  let src = 0;
  for (let i = 0; i < rank; i++) shape.push(list.includes(i) ? 1 : x.shape[src++]);
  return one(x.graph, 'Unsqueeze', [x, int64s(x.graph, list)], x.dtype, shape);
}

export function squeeze(x: Tensor, axes: readonly number[]): Tensor {
  const list = axes.map((a) => normAxis('Squeeze', a, x.rank));
  for (const a of list) if (x.shape[a] !== 1) fail('Squeeze', `axis ${a} of ${x} is not 1`);
  return one(
    x.graph,
    'Squeeze',
    [x, int64s(x.graph, list)],
    x.dtype,
    x.shape.filter((_, i) => !list.includes(i)),
  );
}

function slicedDim(d: Dim, start: number, end: number): Dim {
  if (typeof d === 'number') {
    const s = Math.min(Math.max(start < 0 ? start + d : start, 0), d);
    const e = Math.min(Math.max(end < 0 ? end + d : end, 0), d);
    return Math.max(e - s, 0);
  }
  if (start < 0 && end === Infinity) return -start;
  if (start < 0 && end < 0) return Math.max(end - start, 0);
  if (start >= 0 && end >= 0 && end !== Infinity) return end - start;
  if (start === 0 && end === Infinity) return d;
  return `${d}-${start - (end === Infinity ? 0 : end)}`;
}

/**
 * x[starts:ends] along `axes` (default the first starts.length axes), step 1. Negative indices count from the end;
 * `Infinity` as an end means "to the end". On a named dim, one of start/end must be anchored to a known side
 * (start >= 0, or end = Infinity / negative) so that the gradient's padding is known.
 */
export function slice(x: Tensor, starts: readonly number[], ends: readonly number[], axes?: readonly number[]): Tensor {
  const ax = (axes ?? starts.map((_, i) => i)).map((a) => normAxis('Slice', a, x.rank));
  const to = ends.map((e) => (e >= 2 ** 31 ? Infinity : e)); // any huge end (the "to the end" idiom) is Infinity
  if (starts.length !== to.length || ax.length !== starts.length)
    fail('Slice', 'starts, ends and axes differ in length');
  const shape = [...x.shape];
  ax.forEach((a, i) => (shape[a] = slicedDim(x.shape[a], starts[i], to[i])));
  const g = x.graph;
  return one(g, 'Slice', [x, int64s(g, starts), int64s(g, to), int64s(g, ax)], x.dtype, shape);
}

function sumDims(dims: Dim[]): Dim {
  const nums = dims.filter((d) => typeof d === 'number') as number[];
  const names = dims.filter((d) => typeof d === 'string');
  const n = nums.reduce((a, b) => a + b, 0);
  if (names.length === 0) return n;
  return [...names, ...(n ? [String(n)] : [])].join('+');
}

/** Join tensors along `axis`; other dims must agree. */
export function concat(xs: readonly Tensor[], axis: number): Tensor {
  if (xs.length === 0) fail('Concat', 'needs at least one tensor');
  sameDtype('Concat', ...xs);
  const a = normAxis('Concat', axis, xs[0].rank);
  for (const x of xs)
    if (x.rank !== xs[0].rank || x.shape.some((d, i) => i !== a && !sameDim(d, xs[0].shape[i])))
      fail('Concat', `${xs.map(String).join(', ')} differ off axis ${axis}`);
  const shape = [...xs[0].shape];
  shape[a] = sumDims(xs.map((x) => x.shape[a]));
  return one(xs[0].graph, 'Concat', [...xs], xs[0].dtype, shape, { axis: { int: a } });
}

/** data.take(indices, axis): shape data[:axis] + indices.shape + data[axis+1:]. Embedding lookup is axis 0. */
export function gather(data: Tensor, indices: Tensor, axis = 0): Tensor {
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32')
    throw new TensorError('DTYPE_MISMATCH', `Gather needs integer indices, got ${indices}`);
  const a = normAxis('Gather', axis, data.rank);
  const shape = [...data.shape.slice(0, a), ...indices.shape, ...data.shape.slice(a + 1)];
  return one(data.graph, 'Gather', [data, indices], data.dtype, shape, { axis: { int: a } });
}

/** out[i][j] = data[i][indices[i][j]] along `axis` (picking target log-probs); shape is indices' shape. */
export function gatherElements(data: Tensor, indices: Tensor, axis: number): Tensor {
  if (indices.dtype !== 'int64' && indices.dtype !== 'int32')
    throw new TensorError('DTYPE_MISMATCH', `GatherElements needs integer indices, got ${indices}`);
  if (indices.rank !== data.rank) fail('GatherElements', `${data} and ${indices} differ in rank`);
  const a = normAxis('GatherElements', axis, data.rank);
  return one(data.graph, 'GatherElements', [data, indices], data.dtype, indices.shape, { axis: { int: a } });
}

/** Broadcast x to `dims` (numpy rules; named dims resolved at run time). */
export function expand(x: Tensor, dims: Shape): Tensor {
  const shape = broadcastShapes('Expand', x.shape, dims);
  return one(x.graph, 'Expand', [x, shapeTensor(dims, x)], x.dtype, shape);
}

/**
 * Keeps the lower (upper = false) or upper triangle of the last two axes, relative to diagonal k
 * (lower keeps j <= i + k). k may be an int64 scalar tensor computed at run time.
 */
export function trilu(x: Tensor, upper: boolean, k: number | Tensor = 0): Tensor {
  const kt = typeof k === 'number' ? x.graph.scalar(k, 'int64') : k;
  return one(x.graph, 'Trilu', [x, kt], x.dtype, x.shape, { upper: { int: upper ? 1 : 0 } });
}

// ---------------------------------------------------------------- ops used by gradient rules

/** A tensor of `shape` (an int64 [rank] tensor) filled with `value`. */
export function constantOfShape(shape: Tensor, value: number, dtype: DType, symbolic: Shape): Tensor {
  const tensor = { dtype, dims: [1], data: toHostArray([value], dtype) };
  return one(shape.graph, 'ConstantOfShape', [shape], dtype, symbolic, { value: { tensor } });
}

export const zerosLike = (x: Tensor): Tensor => constantOfShape(shapeOf(x), 0, x.dtype, x.shape);

/** Sums a broadcast gradient back to `target`'s shape: leading axes dropped, size-1 axes kept. */
export function sumToShape(g: Tensor, target: Shape): Tensor {
  const lead = g.rank - target.length;
  let out = g;
  if (lead > 0) out = reduceSum(out, [...Array(lead).keys()], false);
  const axes = target.flatMap((d, i) => (d === 1 && out.shape[i] !== 1 ? [i] : []));
  if (axes.length > 0) out = reduceSum(out, axes, true);
  return out;
}

/** Y = op(A) @ op(B) for 2-D operands, with optional transposes (ONNX Gemm). */
export function gemm(a: Tensor, b: Tensor, transA: boolean, transB: boolean): Tensor {
  const m = transA ? a.shape[1] : a.shape[0];
  const n = transB ? b.shape[0] : b.shape[1];
  return one(a.graph, 'Gemm', [a, b], a.dtype, [m, n], {
    transA: { int: transA ? 1 : 0 },
    transB: { int: transB ? 1 : 0 },
  });
}

/** Zero-pad x by an int64 [2 * rank] pads tensor (all befores, then all afters). */
export function pad(x: Tensor, pads: Tensor, symbolic: Shape): Tensor {
  return one(x.graph, 'Pad', [x, pads], x.dtype, symbolic);
}

/** Splits x along `axis` into pieces whose sizes are given at run time (int64 [n]). */
export function split(x: Tensor, sizes: Tensor, axis: number, symbolic: Shape[]): Tensor[] {
  return x.graph.addNode(
    'Split',
    [x, sizes],
    symbolic.map((shape) => ({ dtype: x.dtype, shape })),
    { axis: { int: axis } },
  );
}

/** data with updates added at the index tuples in indices (ONNX ScatterND, reduction add). */
export function scatterNDAdd(data: Tensor, indices: Tensor, updates: Tensor): Tensor {
  return one(data.graph, 'ScatterND', [data, indices, updates], data.dtype, data.shape, {
    reduction: { string: 'add' },
  });
}

/** data with updates added along `axis` at indices (ONNX ScatterElements, reduction add). */
export function scatterElementsAdd(data: Tensor, indices: Tensor, updates: Tensor, axis: number): Tensor {
  return one(data.graph, 'ScatterElements', [data, indices, updates], data.dtype, data.shape, {
    axis: { int: axis },
    reduction: { string: 'add' },
  });
}

/** Broadcast x to the run-time shape of `like`. */
export const expandLike = (x: Tensor, like: Tensor): Tensor =>
  one(x.graph, 'Expand', [x, shapeOf(like)], x.dtype, broadcastShapes('Expand', x.shape, like.shape));

/** Reshape x to the run-time shape of `like` (same element count). */
export const reshapeLike = (x: Tensor, like: Tensor): Tensor =>
  one(x.graph, 'Reshape', [x, shapeOf(like)], x.dtype, like.shape);

/** Number of elements of x at run time, as an int64 scalar. */
export const sizeOf = (x: Tensor): Tensor => one(x.graph, 'Size', [x], 'int64', []);
