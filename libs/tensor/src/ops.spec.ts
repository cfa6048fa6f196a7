/**
 * The op table: every primitive and composed op, its value checked against the float64 reference in
 * testing/reference.ts and its gradient against central finite differences of that reference.
 *
 * Tolerances (the graph runs in float32, the reference in float64):
 *   values    |onnx - ref| <= 1e-5 + 1e-4 * |ref|
 *   gradients |onnx - fd|  <= 1e-4 + 2e-3 * |fd|, fd = (f(x + h) - f(x - h)) / 2h with h = 1e-6,
 *             where f = sum(ref(inputs) * R) for a fixed random R of the output's shape.
 */
import { describe, expect, it } from 'vitest';
import type { DType } from './dtype';
import { Graph, type Tensor } from './graph';
import * as nn from './nn';
import * as op from './ops';
import { grad } from './autodiff';
import { Runtime } from './runtime';
import type { Dim } from './shape';
import * as R from './testing/reference';
import { ND } from './testing/reference';

interface InputSpec {
  shape: number[];
  /** Declared shape when it should differ from the concrete one (named dims). */
  declared?: Dim[];
  dtype?: DType;
  /** Fixed values (integers, masks); otherwise uniform in [-1, 1] (or [0.5, 1.5] when positive). */
  values?: number[];
  positive?: boolean;
  /** Whether the gradient of this input is checked; default: float inputs without fixed values. */
  diff?: boolean;
}

interface Case {
  name: string;
  inputs: InputSpec[];
  build: (...t: Tensor[]) => Tensor;
  ref: (...a: ND[]) => ND;
  /** Check gradients (default true when the output is float). */
  grad?: boolean;
}

const f = (...shape: number[]): InputSpec => ({ shape });
const pos = (...shape: number[]): InputSpec => ({ shape, positive: true });
const ints = (shape: number[], values: number[], dtype: DType = 'int64'): InputSpec => ({ shape, values, dtype });
const named = (declared: Dim[], shape: number[]): InputSpec => ({ shape, declared });

const sig = (v: number) => 1 / (1 + Math.exp(-v));

const cases: Case[] = [
  // elementwise, with broadcasting
  { name: 'add', inputs: [f(2, 3), f(2, 3)], build: op.add, ref: (a, b) => R.map((x, y) => x + y, a, b) },
  { name: 'add broadcast row', inputs: [f(2, 3), f(3)], build: op.add, ref: (a, b) => R.map((x, y) => x + y, a, b) },
  {
    name: 'sub broadcast both',
    inputs: [f(2, 1, 3), f(4, 1)],
    build: op.sub,
    ref: (a, b) => R.map((x, y) => x - y, a, b),
  },
  { name: 'mul broadcast col', inputs: [f(2, 3), f(2, 1)], build: op.mul, ref: (a, b) => R.map((x, y) => x * y, a, b) },
  { name: 'mul by number', inputs: [f(2, 3)], build: (a) => op.mul(a, 2.5), ref: (a) => R.map((x) => x * 2.5, a) },
  { name: 'div', inputs: [f(2, 3), pos(1, 3)], build: op.div, ref: (a, b) => R.map((x, y) => x / y, a, b) },
  { name: 'pow', inputs: [pos(2, 3), f(2, 3)], build: op.pow, ref: (a, b) => R.map((x, y) => x ** y, a, b) },
  { name: 'pow by number', inputs: [pos(4)], build: (a) => op.pow(a, 3), ref: (a) => R.map((x) => x ** 3, a) },
  {
    name: 'pow squared, signed base',
    inputs: [f(2, 3)],
    build: (a) => op.pow(a, 2),
    ref: (a) => R.map((x) => x * x, a),
  },
  { name: 'maximum broadcast', inputs: [f(2, 3), f(3)], build: op.maximum, ref: (a, b) => R.map(Math.max, a, b) },
  { name: 'neg', inputs: [f(2, 3)], build: op.neg, ref: (a) => R.map((x) => -x, a) },
  { name: 'exp', inputs: [f(2, 3)], build: op.exp, ref: (a) => R.map(Math.exp, a) },
  { name: 'log', inputs: [pos(2, 3)], build: op.log, ref: (a) => R.map(Math.log, a) },
  { name: 'sqrt', inputs: [pos(2, 3)], build: op.sqrt, ref: (a) => R.map(Math.sqrt, a) },
  { name: 'reciprocal', inputs: [pos(2, 3)], build: op.reciprocal, ref: (a) => R.map((x) => 1 / x, a) },
  { name: 'tanh', inputs: [f(2, 3)], build: op.tanh, ref: (a) => R.map(Math.tanh, a) },
  { name: 'sigmoid', inputs: [f(2, 3)], build: op.sigmoid, ref: (a) => R.map(sig, a) },
  { name: 'erf', inputs: [f(2, 3)], build: op.erf, ref: (a) => R.map(R.erf, a) },
  {
    name: 'where broadcast',
    inputs: [{ shape: [2, 1], dtype: 'bool', values: [1, 0] }, f(2, 3), f(3)],
    build: op.where,
    ref: (c, a, b) => R.map((k, x, y) => (k ? x : y), c, a, b),
  },
  {
    name: 'cast int64 -> float32',
    inputs: [ints([4], [3, -1, 0, 7])],
    build: (a) => op.cast(a, 'float32'),
    ref: (a) => a,
    grad: false,
  },
  { name: 'cast float32 -> float32 grad', inputs: [f(2, 2)], build: (a) => op.cast(a, 'float32'), ref: (a) => a },
  {
    name: 'detach blocks gradient',
    inputs: [f(3)],
    build: (a) => op.mul(op.detach(a), a),
    ref: (a) => R.map((x) => x * x, a),
    grad: false,
  },
  // comparisons and logic (bool outputs, values only)
  {
    name: 'equal',
    inputs: [ints([3], [1, 2, 3]), ints([3], [1, 0, 3])],
    build: op.equal,
    ref: (a, b) => R.map((x, y) => +(x === y), a, b),
  },
  { name: 'less', inputs: [f(2, 3), f(3)], build: op.less, ref: (a, b) => R.map((x, y) => +(x < y), a, b) },
  {
    name: 'lessOrEqual',
    inputs: [f(2, 3), f(3)],
    build: op.lessOrEqual,
    ref: (a, b) => R.map((x, y) => +(x <= y), a, b),
  },
  { name: 'greater', inputs: [f(2, 3), f(3)], build: op.greater, ref: (a, b) => R.map((x, y) => +(x > y), a, b) },
  {
    name: 'greaterOrEqual',
    inputs: [f(2, 3), f(3)],
    build: op.greaterOrEqual,
    ref: (a, b) => R.map((x, y) => +(x >= y), a, b),
  },
  {
    name: 'logicalAnd / logicalNot',
    inputs: [
      { shape: [4], dtype: 'bool', values: [1, 1, 0, 0] },
      { shape: [4], dtype: 'bool', values: [1, 0, 1, 0] },
    ],
    build: (a, b) => op.logicalAnd(a, op.logicalNot(b)),
    ref: (a, b) => R.map((x, y) => +(x === 1 && y === 0), a, b),
  },
  // matmul
  { name: 'matmul 2d', inputs: [f(3, 4), f(4, 2)], build: op.matmul, ref: R.matmul },
  { name: 'matmul batched x 2d weight', inputs: [f(2, 3, 4), f(4, 5)], build: op.matmul, ref: R.matmul },
  { name: 'matmul batch broadcast', inputs: [f(2, 1, 3, 4), f(3, 4, 2)], build: op.matmul, ref: R.matmul },
  { name: 'matmul named batch', inputs: [named(['B', 'T', 4], [2, 3, 4]), f(4, 2)], build: op.matmul, ref: R.matmul },
  // reductions
  {
    name: 'reduceSum axis',
    inputs: [f(2, 3, 4)],
    build: (a) => op.reduceSum(a, 1),
    ref: (a) => R.reduce(a, [1], false, 'sum'),
  },
  {
    name: 'reduceSum keepdims',
    inputs: [f(2, 3, 4)],
    build: (a) => op.reduceSum(a, [0, 2], true),
    ref: (a) => R.reduce(a, [0, 2], true, 'sum'),
  },
  {
    name: 'reduceMean',
    inputs: [f(2, 3, 4)],
    build: (a) => op.reduceMean(a, -1),
    ref: (a) => R.reduce(a, [-1], false, 'mean'),
  },
  {
    name: 'reduceMean named',
    inputs: [named(['B', 3], [4, 3])],
    build: (a) => op.reduceMean(a, [0, 1], true),
    ref: (a) => R.reduce(a, [0, 1], true, 'mean'),
  },
  {
    name: 'reduceMax',
    inputs: [f(2, 3, 4)],
    build: (a) => op.reduceMax(a, 2),
    ref: (a) => R.reduce(a, [2], false, 'max'),
  },
  // shape ops
  { name: 'reshape', inputs: [f(2, 6)], build: (a) => op.reshape(a, [3, -1, 2]), ref: (a) => R.reshape(a, [3, 2, 2]) },
  {
    name: 'reshape named split heads',
    inputs: [named(['B', 'T', 6], [2, 3, 6])],
    build: (a) => op.reshape(a, ['B', 'T', 2, 3]),
    ref: (a) => R.reshape(a, [2, 3, 2, 3]),
  },
  {
    name: 'reshape named merge -1',
    inputs: [named(['B', 'T', 4], [2, 3, 4])],
    build: (a) => op.reshape(a, [-1, 4]),
    ref: (a) => R.reshape(a, [6, 4]),
  },
  {
    name: 'reshape named product dim',
    inputs: [named(['B', 'T', 4], [2, 3, 4])],
    build: (a) => op.reshape(a, ['B*T', 4]),
    ref: (a) => R.reshape(a, [6, 4]),
  },
  {
    name: 'transpose',
    inputs: [f(2, 3, 4)],
    build: (a) => op.transpose(a, [2, 0, 1]),
    ref: (a) => R.transpose(a, [2, 0, 1]),
  },
  {
    name: 'unsqueeze / squeeze',
    inputs: [f(2, 3)],
    build: (a) => op.squeeze(op.unsqueeze(a, [0, 2]), [0]),
    ref: (a) => R.reshape(a, [2, 1, 3]),
  },
  {
    name: 'slice',
    inputs: [f(4, 5)],
    build: (a) => op.slice(a, [1, 1], [3, 4]),
    ref: (a) => R.slice(a, [1, 1], [3, 4], [0, 1]),
  },
  {
    name: 'slice negative',
    inputs: [f(4, 5)],
    build: (a) => op.slice(a, [-2], [Infinity], [1]),
    ref: (a) => R.slice(a, [-2], [Infinity], [1]),
  },
  {
    name: 'slice last position of named T',
    inputs: [named(['B', 'T', 3], [2, 4, 3])],
    build: (a) => op.slice(a, [-1], [Infinity], [1]),
    ref: (a) => R.slice(a, [-1], [Infinity], [1]),
  },
  {
    name: 'slice head of named T',
    inputs: [named(['B', 'T', 3], [2, 4, 3])],
    build: (a) => op.slice(a, [1], [-1], [1]),
    ref: (a) => R.slice(a, [1], [-1], [1]),
  },
  {
    name: 'concat',
    inputs: [f(2, 3), f(2, 2)],
    build: (a, b) => op.concat([a, b], 1),
    ref: (a, b) => R.concat([a, b], 1),
  },
  {
    name: 'concat named (KV cache append)',
    inputs: [named([1, 'P', 2], [1, 3, 2]), f(1, 1, 2)],
    build: (a, b) => op.concat([a, b], 1),
    ref: (a, b) => R.concat([a, b], 1),
  },
  {
    name: 'gather embeddings, repeated ids',
    inputs: [f(5, 3), ints([2, 3], [0, 4, 4, 1, 0, 2])],
    build: (t, i) => op.gather(t, i),
    ref: (t, i) => R.gather(t, i, 0),
  },
  {
    name: 'gather int32 ids',
    inputs: [f(4, 2), ints([3], [3, 3, 0], 'int32')],
    build: (t, i) => op.gather(t, i),
    ref: (t, i) => R.gather(t, i, 0),
  },
  {
    name: 'gatherElements',
    inputs: [f(3, 4), ints([3, 2], [0, 3, 1, 1, 2, 0])],
    build: (t, i) => op.gatherElements(t, i, 1),
    ref: (t, i) => R.gatherElements(t, i, 1),
  },
  { name: 'expand', inputs: [f(3, 1)], build: (a) => op.expand(a, [2, 3, 4]), ref: (a) => R.expand(a, [2, 3, 4]) },
  {
    name: 'expand to named',
    inputs: [f(1, 3), named(['B', 3], [4, 3])],
    build: (a, b) => op.add(op.expand(a, ['B', 3]), b),
    ref: (a, b) => R.map((x, y) => x + y, R.expand(a, [4, 3]), b),
  },
  { name: 'trilu lower k=1', inputs: [f(3, 4)], build: (a) => op.trilu(a, false, 1), ref: (a) => R.trilu(a, false, 1) },
  { name: 'trilu upper', inputs: [f(2, 3, 3)], build: (a) => op.trilu(a, true), ref: (a) => R.trilu(a, true, 0) },
  // tensors used more than once
  { name: 'x * x', inputs: [f(2, 3)], build: (a) => op.mul(a, a), ref: (a) => R.map((x) => x * x, a) },
  {
    name: 'x @ x + x',
    inputs: [f(3, 3)],
    build: (a) => op.add(op.matmul(a, a), a),
    ref: (a) => R.map((x, y) => x + y, R.matmul(a, a), a),
  },
  {
    name: 'exp(x) / (x + 3) with a shared subexpression',
    inputs: [f(2, 3)],
    build: (a) => {
      const e = op.exp(a);
      return op.div(op.mul(e, e), op.add(a, 3));
    },
    ref: (a) => R.map((x) => Math.exp(2 * x) / (x + 3), a),
  },
  // normalisation ops with their own gradient rules, then composed ops
  { name: 'softmax', inputs: [f(2, 5)], build: (a) => op.softmax(a), ref: R.softmax },
  {
    name: 'softmax axis 0',
    inputs: [f(3, 2)],
    build: (a) => op.softmax(a, 0),
    ref: (a) => R.transpose(R.softmax(R.transpose(a, [1, 0])), [1, 0]),
  },
  { name: 'logSoftmax', inputs: [f(2, 5)], build: (a) => op.logSoftmax(a), ref: (a) => R.map(Math.log, R.softmax(a)) },
  {
    name: 'logSoftmax axis 0',
    inputs: [f(3, 2)],
    build: (a) => op.logSoftmax(a, 0),
    ref: (a) => R.map(Math.log, R.transpose(R.softmax(R.transpose(a, [1, 0])), [1, 0])),
  },
  {
    name: 'rmsNorm',
    inputs: [f(2, 3, 4), f(4)],
    build: (x, w) => nn.rmsNorm(x, w, 1e-5),
    ref: (x, w) => {
      const ms = R.reduce(
        R.map((v) => v * v, x),
        [-1],
        true,
        'mean',
      );
      return R.map((v, m, s) => (v / Math.sqrt(m + 1e-5)) * s, x, ms, w);
    },
  },
  { name: 'silu', inputs: [f(2, 3)], build: nn.silu, ref: (a) => R.map((x) => x * sig(x), a) },
  {
    name: 'swiglu',
    inputs: [f(2, 3), f(2, 3)],
    build: nn.swiglu,
    ref: (a, b) => R.map((x, y) => x * sig(x) * y, a, b),
  },
  {
    name: 'gelu',
    inputs: [f(2, 3)],
    build: nn.gelu,
    ref: (a) => R.map((x) => 0.5 * x * (1 + R.erf(x / Math.SQRT2)), a),
  },
  {
    name: 'linear with bias',
    inputs: [f(2, 3, 4), f(4, 2), f(2)],
    build: (x, w, b) => nn.linear(x, w, b),
    ref: (x, w, b) => R.map((u, v) => u + v, R.matmul(x, w), b),
  },
  {
    name: 'tokenEntropy',
    inputs: [f(2, 3, 5)],
    build: nn.tokenEntropy,
    ref: (l) =>
      R.reduce(
        R.map((p) => -p * Math.log(p), R.softmax(l)),
        [-1],
        false,
        'sum',
      ),
  },
  {
    name: 'tokenLogProbs',
    inputs: [f(2, 3, 5), ints([2, 3], [0, 4, 2, 2, 1, 3])],
    build: nn.tokenLogProbs,
    ref: (l, t) => R.reshape(R.gatherElements(R.map(Math.log, R.softmax(l)), R.reshape(t, [2, 3, 1]), 2), [2, 3]),
  },
  {
    name: 'maskedCrossEntropy',
    inputs: [
      named(['B', 'T', 5], [2, 3, 5]),
      ints([2, 3], [0, 4, 2, 2, 1, 3]),
      { shape: [2, 3], values: [1, 1, 0, 1, 0, 1] },
    ],
    build: nn.maskedCrossEntropy,
    ref: (l, t, m) => {
      const lp = R.gatherElements(R.map(Math.log, R.softmax(l)), R.reshape(t, [2, 3, 1]), 2);
      const total = R.reduce(
        R.map((a, b) => a * b, R.reshape(lp, [2, 3]), m),
        [0, 1],
        false,
        'sum',
      );
      return R.map((v) => -v / 4, total);
    },
  },
  {
    name: 'causalAttention (S = T)',
    inputs: [f(1, 2, 3, 4), f(1, 2, 3, 4), f(1, 2, 3, 4)],
    build: nn.causalAttention,
    ref: (q, k, v) => R.attention(q, k, v),
  },
  {
    name: 'causalAttention named T',
    inputs: [
      named([2, 1, 'T', 4], [2, 1, 3, 4]),
      named([2, 1, 'T', 4], [2, 1, 3, 4]),
      named([2, 1, 'T', 4], [2, 1, 3, 4]),
    ],
    build: nn.causalAttention,
    ref: (q, k, v) => R.attention(q, k, v),
  },
  {
    name: 'causalAttention with a KV cache (S > T)',
    inputs: [f(1, 2, 2, 4), f(1, 2, 5, 4), f(1, 2, 5, 4)],
    build: nn.causalAttention,
    ref: (q, k, v) => R.attention(q, k, v),
  },
  {
    name: 'causalAttention with key padding',
    inputs: [
      f(2, 1, 3, 4),
      f(2, 1, 3, 4),
      f(2, 1, 3, 4),
      { shape: [2, 1, 1, 3], dtype: 'bool', values: [1, 1, 1, 1, 0, 1] },
    ],
    build: nn.causalAttention,
    ref: (q, k, v, m) => R.attention(q, k, v, R.reshape(m, [2, 3])),
  },
  {
    name: 'repeatHeads',
    inputs: [named(['B', 2, 'S', 3], [1, 2, 2, 3])],
    build: (x) => nn.repeatHeads(x, 2),
    ref: (x) => R.gather(x, ND.of([4], [0, 0, 1, 1]), 1),
  },
];

const runtime = new Runtime({ intraOpThreads: 1 });

function hostArray(dtype: DType, values: ArrayLike<number>) {
  switch (dtype) {
    case 'float32':
      return Float32Array.from(values);
    case 'int64':
      return BigInt64Array.from(Array.from(values), (v) => BigInt(v));
    case 'int32':
      return Int32Array.from(values);
    case 'bool':
      return Uint8Array.from(values);
    case 'float16':
      throw new Error('float16 inputs are not exercised by the op table');
  }
}

const toNumbers = (data: ArrayLike<number | bigint>) => Array.from(data, Number);

function expectClose(actual: number[], expected: ArrayLike<number>, atol: number, rtol: number, what: string) {
  expect(actual.length, what).toBe(expected.length);
  actual.forEach((a, i) => {
    const e = expected[i];
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e)))
      expect.fail(`${what}[${i}]: got ${a}, expected ${e} (atol ${atol}, rtol ${rtol})`);
  });
}

describe('op table', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const rand = R.rng(c.name.length * 7919 + 17);
    const values = c.inputs.map((s) =>
      ND.of(
        s.shape,
        s.values ?? Array.from({ length: R.size(s.shape) }, () => (s.positive ? 0.5 + rand() : 2 * rand() - 1)),
      ),
    );
    const g = new Graph(c.name);
    const inputs = c.inputs.map((s, i) => g.input(`in${i}`, s.dtype ?? 'float32', s.declared ?? s.shape));
    const out = c.build(...inputs);
    const expected = c.ref(...values);
    expect(out.rank).toBe(expected.shape.length);
    out.shape.forEach((d, i) => typeof d === 'number' && expect(d).toBe(expected.shape[i]));

    const feeds: Record<string, { data: ReturnType<typeof hostArray>; dims: number[] }> = {};
    c.inputs.forEach(
      (s, i) => (feeds[`in${i}`] = { data: hostArray(s.dtype ?? 'float32', values[i].data), dims: s.shape }),
    );
    const diffable = c.inputs.flatMap((s, i) =>
      (s.diff ?? ((s.dtype ?? 'float32') === 'float32' && !s.values)) ? [i] : [],
    );
    const checkGrad = (c.grad ?? out.dtype === 'float32') && diffable.length > 0;

    const outputs: Record<string, Tensor> = { out };
    const weights = ND.of(
      expected.shape,
      Array.from({ length: R.size(expected.shape) }, () => 2 * rand() - 1),
    );
    if (checkGrad) {
      const r = g.input('r', 'float32', out.shape);
      feeds.r = { data: Float32Array.from(weights.data), dims: expected.shape };
      const weighted = op.mul(out, r);
      const loss =
        out.rank === 0
          ? weighted
          : op.reduceSum(
              weighted,
              out.shape.map((_d, i) => i),
            );
      grad(
        loss,
        diffable.map((i) => inputs[i]),
      ).forEach((t, k) => (outputs[`d${diffable[k]}`] = t));
    }
    const result = await runtime.compile(g, outputs).run(feeds);
    expect(result.out.dims).toEqual(expected.shape);
    expectClose(toNumbers(result.out.data), expected.data, 1e-5, 1e-4, 'value');

    if (!checkGrad) return;
    const h = 1e-6;
    const objective = (xs: ND[]) => {
      const y = c.ref(...xs);
      let s = 0;
      for (let i = 0; i < y.data.length; i++) s += y.data[i] * weights.data[i];
      return s;
    };
    for (const i of diffable) {
      const fd = values[i].data.map((_v, j) => {
        const shifted = (delta: number) =>
          values.map((v, k) =>
            k === i
              ? new ND(
                  v.shape,
                  v.data.map((x, m) => (m === j ? x + delta : x)),
                )
              : v,
          );
        return (objective(shifted(h)) - objective(shifted(-h))) / (2 * h);
      });
      expect(result[`d${i}`].dims).toEqual(c.inputs[i].shape);
      expectClose(toNumbers(result[`d${i}`].data), fd, 1e-4, 2e-3, `d(in${i})`);
    }
  });

  it('covers every op of the gradient table that forward code can emit', async () => {
    const { gradientRules } = await import('./autodiff');
    const backwardOnly = ['Identity', 'StopGradient', 'Shape', 'Size', 'ConstantOfShape', 'Split'];
    const tested = new Set<string>();
    for (const c of cases) {
      const g = new Graph('ops');
      const inputs = c.inputs.map((s, i) => g.input(`in${i}`, s.dtype ?? 'float32', s.declared ?? s.shape));
      c.build(...inputs);
      for (const node of g.nodes) tested.add(node.op);
    }
    const untested = Object.keys(gradientRules).filter((o) => !tested.has(o) && !backwardOnly.includes(o));
    expect(untested).toEqual([]);
  });
});
