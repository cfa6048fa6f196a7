import onnxProto from 'onnx-proto';
import { describe, expect, it } from 'vitest';
import { TensorError } from './errors';
import { Graph } from './graph';
import { add, matmul, reduceSum } from './ops';
import { Runtime } from './runtime';
import { OPSET } from './serialize';

const { onnx } = onnxProto;

function affine() {
  const g = new Graph('affine');
  const x = g.input('x', 'float32', ['B', 2]);
  const w = g.input('w', 'float32', [2, 3]);
  const y = matmul(x, w); // (B, 3)
  return { g, x, w, y, total: reduceSum(y, [0, 1]) };
}

const w = new Float32Array([1, 2, 3, 4, 5, 6]);

describe('Runtime', () => {
  it('compiles one session per shape signature and reuses it', async () => {
    const { g, y } = affine();
    const f = new Runtime({ intraOpThreads: 1 }).compile(g, { y });
    const a = await f.run({ x: { data: new Float32Array([1, 1]), dims: [1, 2] }, w });
    const b = await f.run({ x: new Float32Array([1, 0, 0, 1]), w }); // B inferred from the length
    await f.run({ x: new Float32Array([2, 2]), w });
    expect(Array.from(a.y.data as Float32Array)).toEqual([5, 7, 9]);
    expect(b.y.dims).toEqual([2, 3]);
    expect(Array.from(b.y.data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(f.sessionCount).toBe(2);
    await f.release();
  });

  it('uses a single session for all shapes when specialisation is off', async () => {
    const { g, y } = affine();
    const f = new Runtime({ intraOpThreads: 1, specializeShapes: false }).compile(g, { y });
    await f.run({ x: new Float32Array(2), w });
    await f.run({ x: new Float32Array(6), w });
    expect(f.sessionCount).toBe(1);
  });

  it('evicts the least recently used session beyond maxSessions', async () => {
    const { g, y } = affine();
    const f = new Runtime({ intraOpThreads: 1, maxSessions: 2 }).compile(g, { y });
    for (const b of [1, 2, 3]) await f.run({ x: new Float32Array(2 * b), w });
    expect(f.sessionCount).toBe(2);
  });

  it('gives the same result with a frozen initializer as with a fed input', async () => {
    const { g, y } = affine();
    const frozen = g.initializer('w_frozen', 'float32', [2, 3], w);
    const x = g.inputs[0];
    const yFrozen = matmul(x, frozen);
    const rt = new Runtime({ intraOpThreads: 1 });
    const fed = await rt.compile(g, { y }).run({ x: new Float32Array([0.5, -1]), w });
    const compiled = rt.compile(g, { yFrozen });
    expect(compiled.inputs.map((t) => t.name)).toEqual(['x']);
    const baked = await compiled.run({ x: new Float32Array([0.5, -1]) });
    expect(Array.from(baked.yFrozen.data as Float32Array)).toEqual(Array.from(fed.y.data as Float32Array));
  });

  it('serialises with onnx-proto: opset, pruned inputs, raw initializer bytes, concrete dims', () => {
    const { g, x, y } = affine();
    const frozen = g.initializer('bias', 'float32', [3], new Float32Array([7, 8, 9]));
    const f = new Runtime().compile(g, { y: add(y, frozen), x });
    const model = onnx.ModelProto.decode(f.modelBytes({ B: 4 }));
    const graph = model.graph as onnxProto.onnx.GraphProto;
    expect(Number(model.opsetImport[0].version)).toBe(OPSET);
    expect(graph.input.map((i) => i.name)).toEqual(['x', 'w']);
    expect(Number(graph.input[0].type?.tensorType?.shape?.dim?.[0].dimValue)).toBe(4);
    const bias = graph.initializer.find((t) => t.name === 'bias') as onnxProto.onnx.TensorProto;
    expect(Array.from(new Float32Array(Uint8Array.from(bias.rawData).buffer))).toEqual([7, 8, 9]);
    expect(graph.output.map((o) => o.name)).toContain('x__output');
  });

  it('returns an input requested as an output', async () => {
    const { g, x } = affine();
    const out = await new Runtime().compile(g, { x }).run({ x: new Float32Array([3, 4]) });
    expect(Array.from(out.x.data as Float32Array)).toEqual([3, 4]);
  });

  it('rejects missing feeds, wrong array types and inconsistent dims', async () => {
    const { g, y } = affine();
    const f = new Runtime().compile(g, { y });
    await expect(f.run({ x: new Float32Array(2) })).rejects.toThrow(/missing feed 'w'/);
    await expect(f.run({ x: new Float64Array(2) as never, w })).rejects.toThrow(
      /needs a Float32Array, got Float64Array/,
    );
    await expect(
      f.run({ x: { data: new Float32Array(4), dims: [2, 2] }, w: { data: w, dims: [3, 2] } }),
    ).rejects.toThrow(TensorError);
    await expect(f.run({ x: { data: new Float32Array(3), dims: [2, 2] }, w })).rejects.toThrow(/3 values/);
  });

  it('rejects unknown config keys and builds CUDA provider options when asked', () => {
    expect(() => new Runtime({ threads: 2 } as never)).toThrow(/runtime config/);
    const options = new Runtime({ executionProvider: 'cuda', deviceId: 1, intraOpThreads: 4 }).sessionOptions();
    expect(options.executionProviders).toEqual([{ name: 'cuda', deviceId: 1 }]);
    expect(options.intraOpNumThreads).toBe(4);
    expect(options.extra).toEqual({
      session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } },
    });
  });

  it("leaves onnxruntime's memory pattern off unless asked", () => {
    expect(new Runtime().sessionOptions().enableMemPattern).toBe(false);
    expect(new Runtime({ memPattern: true }).sessionOptions().enableMemPattern).toBe(true);
  });
});
