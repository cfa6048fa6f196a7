/**
 * Performance of @fathom/tensor on onnxruntime-node. Prints one JSON object per measurement (medians).
 *
 *   node --no-node-snapshot --import tsx bench/tensor/engine.ts [--threads N] [--ep cpu|cuda] [--runs N]
 */
import { Command } from 'commander';
import { threadsOption } from '../options';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import {
  Graph,
  Runtime,
  type Tensor,
  add,
  causalAttention,
  grad,
  linear,
  matmul,
  mul,
  reduceMean,
  reshape,
  rmsNorm,
  swiglu,
  transpose,
} from '@fathom/tensor';
import { median } from '@fathom/contracts';

const { onnx } = onnxProto;

const opts = new Command()
  .addOption(threadsOption())
  .option('--ep <name>', 'execution provider: cpu or cuda', 'cpu')
  .option('--runs <n>', 'timed runs per measurement', (v) => Number(v), 20)
  .parse()
  .opts<{ threads: number; ep: 'cpu' | 'cuda'; runs: number }>();

const runtime = new Runtime({ executionProvider: opts.ep, intraOpThreads: opts.threads });
const config = { threads: opts.threads, ep: opts.ep, ort: ort.env.versions.node };

const emit = (o: Record<string, unknown>) => console.log(JSON.stringify({ ...o, ...config }));
const round = (x: number, d = 3) => Number(x.toFixed(d));

const randomArray = (n: number) => Float32Array.from({ length: n }, () => Math.random() - 0.5);

/** The smallest possible ONNX model around one op, built directly with onnx-proto (no builder involved). */
function rawModel(op: string, inputs: [string, number[]][], output: string, extra: onnxProto.onnx.ITensorProto[] = []) {
  const info = (name: string, dims?: number[]) => ({
    name,
    type: { tensorType: { elemType: 1, shape: dims ? { dim: dims.map((d) => ({ dimValue: d })) } : undefined } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 18 }],
    graph: {
      name: 'raw',
      node: [{ opType: op, input: [...inputs.map(([n]) => n), ...extra.map((t) => t.name ?? '')], output: [output] }],
      input: inputs.map(([n, d]) => info(n, d)),
      output: [info(output)],
      initializer: extra,
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Times two functions in alternation, swapping which goes first each round, so background load and cache state
 * hit both alike; returns both medians.
 */
async function timePair(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  const time = async (fn: () => Promise<unknown>, into: number[]) => {
    const t0 = performance.now();
    await fn();
    into.push(performance.now() - t0);
  };
  for (let i = 0; i < runs; i++) {
    if (i % 2 === 0) {
      await time(a, ta);
      await time(b, tb);
    } else {
      await time(b, tb);
      await time(a, ta);
    }
  }
  return [median(ta), median(tb)];
}

async function gemm(m: number, k: number, n: number) {
  const a = randomArray(m * k);
  const b = randomArray(k * n);
  const g = new Graph('gemm');
  const y = matmul(g.input('a', 'float32', [m, k]), g.input('b', 'float32', [k, n]));
  const built = runtime.compile(g, { y });
  const raw = await ort.InferenceSession.create(
    rawModel(
      'MatMul',
      [
        ['a', [m, k]],
        ['b', [k, n]],
      ],
      'y',
    ),
    runtime.sessionOptions(),
  );
  const rawRun = () => raw.run({ a: new ort.Tensor('float32', a, [m, k]), b: new ort.Tensor('float32', b, [k, n]) });
  const [builderMs, rawMs] = await timePair(opts.runs, () => built.run({ a, b }), rawRun);
  await built.release();
  await raw.release();
  const gflop = (2 * m * k * n) / 1e9;
  emit({
    bench: 'gemm',
    m,
    k,
    n,
    builder_ms: round(builderMs),
    raw_ms: round(rawMs),
    builder_gflops: round(gflop / (builderMs / 1e3), 1),
    raw_gflops: round(gflop / (rawMs / 1e3), 1),
    builder_vs_raw: round(rawMs / builderMs),
    runs: opts.runs,
  });
}

/** One pre-norm Llama-style block: attention (H heads) and a SwiGLU MLP, each with a residual. */
function block(B: number, T: number, D: number, H: number, F: number) {
  const g = new Graph('block');
  const shapes: Record<string, number[]> = {
    norm1: [D],
    wq: [D, D],
    wk: [D, D],
    wv: [D, D],
    wo: [D, D],
    norm2: [D],
    wg: [D, F],
    wu: [D, F],
    wd: [F, D],
  };
  const p: Record<string, Tensor> = {};
  for (const [name, s] of Object.entries(shapes)) p[name] = g.input(name, 'float32', s);
  // Named batch and time dims, as real training graphs declare them, so shape specialisation has work to do.
  const x = g.input('x', 'float32', ['B', 'T', D]);
  const heads = (t: Tensor) => transpose(reshape(t, ['B', 'T', H, D / H]), [0, 2, 1, 3]); // (B, H, T, D/H)
  const h = rmsNorm(x, p.norm1);
  const att = causalAttention(heads(linear(h, p.wq)), heads(linear(h, p.wk)), heads(linear(h, p.wv)));
  const x1 = add(x, linear(reshape(transpose(att, [0, 2, 1, 3]), ['B', 'T', D]), p.wo)); // (B, T, D)
  const h2 = rmsNorm(x1, p.norm2);
  const y = add(x1, linear(swiglu(linear(h2, p.wg), linear(h2, p.wu)), p.wd)); // (B, T, D)
  const loss = reduceMean(mul(y, y), [0, 1, 2]);
  const names = Object.keys(shapes);
  const grads = grad(
    loss,
    names.map((n) => p[n]),
  );
  const feeds: Record<string, Float32Array | { data: Float32Array; dims: number[] }> = {
    x: { data: randomArray(B * T * D), dims: [B, T, D] },
  };
  for (const [name, s] of Object.entries(shapes))
    feeds[name] =
      s.length === 1 ? new Float32Array(D).fill(1) : randomArray(s[0] * s[1]).map((v) => v / Math.sqrt(s[0]));
  const n = B * T;
  const forwardFlop = 4 * 2 * n * D * D + 3 * 2 * n * D * F + 4 * B * T * T * D;
  return { g, loss, grads: Object.fromEntries(names.map((name, i) => [`grad.${name}`, grads[i]])), feeds, forwardFlop };
}

async function transformerBlock(B: number, T: number, D: number, H: number, F: number) {
  const { g, loss, grads, feeds, forwardFlop } = block(B, T, D, H, F);
  const shape = { B, T, D, H, F };

  const t0 = performance.now();
  const train = runtime.compile(g, { loss, ...grads });
  const bytes = train.modelBytes();
  const serializeMs = performance.now() - t0;
  const t1 = performance.now();
  await train.run(feeds); // first call: creates (compiles) the session
  const firstCallMs = performance.now() - t1;
  emit({
    bench: 'compile',
    graph: 'block fwd+bwd',
    ...shape,
    nodes: g.nodes.length,
    model_bytes: bytes.length,
    serialize_ms: round(serializeMs, 1),
    first_call_ms: round(firstCallMs, 1),
  });

  const runs = Math.max(5, Math.floor(opts.runs / 2));
  const forward = runtime.compile(g, { loss });
  const [forwardMs, trainMs] = await timePair(
    runs,
    () => forward.run(feeds),
    () => train.run(feeds),
  );
  emit({
    bench: 'block',
    ...shape,
    forward_ms: round(forwardMs, 1),
    forward_gflops: round(forwardFlop / 1e9 / (forwardMs / 1e3), 1),
    fwd_bwd_ms: round(trainMs, 1),
    // Backward does two matmuls per forward matmul, so a training step is ~3x the forward FLOPs.
    fwd_bwd_gflops: round((3 * forwardFlop) / 1e9 / (trainMs / 1e3), 1),
    forward_gflop: round(forwardFlop / 1e9),
    runs,
  });
  await forward.release();

  // The same training graph as one session for every shape: what shape specialisation buys per call.
  const dynamic = new Runtime({ ...runtime.config, specializeShapes: false }).compile(g, { loss, ...grads });
  const t2 = performance.now();
  await dynamic.run(feeds);
  const dynamicFirstMs = performance.now() - t2;
  const [specializedMs, dynamicMs] = await timePair(
    runs,
    () => train.run(feeds),
    () => dynamic.run(feeds),
  );
  emit({
    bench: 'specialize',
    graph: 'block fwd+bwd',
    ...shape,
    specialized_ms: round(specializedMs, 1),
    dynamic_ms: round(dynamicMs, 1),
    dynamic_first_call_ms: round(dynamicFirstMs, 1),
    runs,
  });
  await train.release();
  await dynamic.release();
}

async function tinyGraph() {
  const g = new Graph('tiny');
  const y = add(g.input('x', 'float32', [1]), 1);
  const f = runtime.compile(g, { y });
  const x = new Float32Array([1]);
  const runs = 2000;
  const one = onnx.TensorProto.create({ name: 'one', dims: [1], dataType: 1, floatData: [1] });
  const raw = await ort.InferenceSession.create(rawModel('Add', [['x', [1]]], 'y', [one]), runtime.sessionOptions());
  const [builderMs, rawMs] = await timePair(
    runs,
    () => f.run({ x }),
    () => raw.run({ x: new ort.Tensor('float32', x, [1]) }),
  );
  emit({ bench: 'tiny_call', builder_us: round(builderMs * 1e3, 1), raw_ort_us: round(rawMs * 1e3, 1), runs });
}

await tinyGraph();
for (const [m, k, n] of [
  [512, 512, 512],
  [2048, 256, 1024],
  [1024, 1024, 1024],
])
  await gemm(m, k, n);
await transformerBlock(8, 256, 256, 4, 1024);
