import { describe, expect, it } from 'vitest';
import { grad } from './autodiff';
import { TensorError } from './errors';
import { Graph } from './graph';
import { add, detach, gather, matmul, mul, reduceSum, tanh } from './ops';
import { Runtime } from './runtime';

const runtime = new Runtime({ intraOpThreads: 1 });

describe('grad', () => {
  it('names the op when the path to the loss crosses an op without a rule', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [3]);
    const [y] = g.addNode('HardSwish', [x], [{ dtype: 'float32', shape: [3] }]);
    const loss = reduceSum(y, 0);
    expect(() => grad(loss, [x])).toThrow(/op 'HardSwish'.*no gradient rule/);
    try {
      grad(loss, [x]);
    } catch (e) {
      expect((e as TensorError).code).toBe('NO_GRADIENT_RULE');
    }
  });

  it('ignores ops without rules that do not lie between wrt and loss', async () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [3]);
    const c = g.input('c', 'float32', [3]);
    const [frozen] = g.addNode('HardSwish', [c], [{ dtype: 'float32', shape: [3] }]);
    const loss = reduceSum(mul(x, frozen), 0);
    const [dx] = grad(loss, [x]);
    const out = await runtime.compile(g, { dx }).run({ x: new Float32Array(3), c: new Float32Array([-4, 1, 4]) });
    const values = Array.from(out.dx.data as Float32Array, (v) => v + 0); // HardSwish(c) = c * relu6(c + 3) / 6
    [0, 4 / 6, 4].forEach((e, i) => expect(values[i]).toBeCloseTo(e, 6));
  });

  it('rejects a non-scalar loss and integer wrt', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [3]);
    const ids = g.input('ids', 'int64', [3]);
    expect(() => grad(tanh(x), [x])).toThrow(TensorError);
    expect(() => grad(reduceSum(x, 0), [ids])).toThrow(/cannot differentiate/);
  });

  it('refuses the Gather gradient off axis 0 with a clear error', () => {
    const g = new Graph();
    const t = g.input('t', 'float32', [2, 3]);
    const ids = g.input('ids', 'int64', [2]);
    expect(() => grad(reduceSum(gather(t, ids, 1), [0, 1]), [t])).toThrow(/axis 1/);
  });

  it('gives the exact gradient of an embedding lookup with repeated ids, with one thread or two', async () => {
    // 8,192 positions over 260 rows: every id repeats about 30 times. onnxruntime's parallel ScatterND lost some of
    // those updates with two threads (ONE_HOT_GATHER_ROWS); the gradient is now one matrix product.
    const [rows, width, positions] = [260, 64, 8192];
    const g = new Graph();
    const table = g.input('table', 'float32', [rows, width]);
    const ids = g.input('ids', 'int64', ['N']);
    const upstream = g.input('upstream', 'float32', ['N', width]);
    const [dTable] = grad(reduceSum(mul(gather(table, ids), upstream), [0, 1]), [table]);
    const idValues = Array.from({ length: positions }, (_, i) => (i * 7919 + 13) % rows);
    const upValues = Float32Array.from({ length: positions * width }, (_, i) => Math.sin(i) / 2);
    const expected = new Float64Array(rows * width);
    idValues.forEach((id, p) => {
      for (let j = 0; j < width; j++) expected[id * width + j] += upValues[p * width + j];
    });
    const feeds = {
      table: new Float32Array(rows * width),
      ids: { data: BigInt64Array.from(idValues, BigInt), dims: [positions] },
      upstream: { data: upValues, dims: [positions, width] },
    };
    for (const threads of [1, 2, 2]) {
      const out = await new Runtime({ intraOpThreads: threads }).compile(g, { dTable }).run(feeds);
      const got = out.dTable.data as Float32Array;
      const worst = Math.max(...Array.from(got, (v, i) => Math.abs(v - expected[i])));
      expect(worst, `${threads} thread(s)`).toBeLessThan(1e-4);
    }
  });

  it('gives zeros for a wrt tensor the loss does not depend on', async () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [2]);
    const unused = g.input('u', 'float32', [2, 2]);
    const [dx, du] = grad(reduceSum(mul(x, x), 0), [x, unused]);
    const out = await runtime
      .compile(g, { dx, du })
      .run({ x: new Float32Array([1, -2]), u: new Float32Array([5, 5, 5, 5]) });
    expect(Array.from(out.dx.data as Float32Array)).toEqual([2, -4]);
    expect(Array.from(out.du.data as Float32Array)).toEqual([0, 0, 0, 0]);
  });

  it('accumulates a parameter used in two layers and differentiates twice in one graph', async () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [1, 2]);
    const w = g.input('w', 'float32', [2, 2]);
    const y = matmul(matmul(x, w), w); // x W W
    const loss = reduceSum(y, [0, 1]);
    const [dw] = grad(loss, [w]);
    const [dx] = grad(loss, [x]);
    const feeds = { x: new Float32Array([1, 2]), w: new Float32Array([1, 2, 3, 4]) };
    const out = await runtime.compile(g, { dw, dx, again: add(dw, 0) }).run(feeds);
    // d/dW sum(x W W) = xᵀ (1 Wᵀ) + (x W)ᵀ 1 with 1 a row of ones.
    const xw = [1 * 1 + 2 * 3, 1 * 2 + 2 * 4]; // [7, 10]
    const oneWt = [1 + 2, 3 + 4]; // [3, 7]
    const expected = [1 * oneWt[0] + xw[0], 1 * oneWt[1] + xw[0], 2 * oneWt[0] + xw[1], 2 * oneWt[1] + xw[1]];
    expect(Array.from(out.dw.data as Float32Array)).toEqual(expected);
    expect(Array.from(out.again.data as Float32Array)).toEqual(expected);
    expect(out.dx.dims).toEqual([1, 2]);
  });

  it('stops gradients at detach', async () => {
    const g = new Graph();
    const x = g.input('x', 'float32', [2]);
    const [dx] = grad(reduceSum(mul(detach(x), x), 0), [x]); // d/dx (c · x) with c = x held constant
    const out = await runtime.compile(g, { dx }).run({ x: new Float32Array([3, -1]) });
    expect(Array.from(out.dx.data as Float32Array)).toEqual([3, -1]);
  });
});
