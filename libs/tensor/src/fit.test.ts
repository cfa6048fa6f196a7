/**
 * End-to-end training through the whole stack: graph, grad, onnxruntime, AdamW. Each toy problem must see its loss
 * fall at least 10x; a checkpointed optimizer must continue a real training run bit-identically.
 */
import { describe, expect, it } from 'vitest';
import { grad } from './autodiff';
import { Graph, type Tensor } from './graph';
import { causalAttention, embedding, linear, maskedCrossEntropy, rmsNorm } from './nn';
import { add, mul, reduceMean, reshape, sub, tanh, transpose } from './ops';
import { AdamW, type AdamWOptions, warmupCosine } from './optim';
import { type CompiledGraph, Runtime } from './runtime';
import { rng } from './testing/reference';

const runtime = new Runtime({ intraOpThreads: 1 });

type Params = Record<string, Float32Array>;

function init(shapes: Record<string, number[]>, seed: number, scale: (shape: number[]) => number): Params {
  const rand = rng(seed);
  return Object.fromEntries(
    Object.entries(shapes).map(([name, shape]) => {
      const n = shape.reduce((a, b) => a * b, 1);
      const s = scale(shape);
      return [name, Float32Array.from({ length: n }, () => (2 * rand() - 1) * s)];
    }),
  );
}

/** Declares every parameter as a graph input and returns loss + gradients compiled together. */
function trainingGraph(g: Graph, shapes: Record<string, number[]>, build: (p: Record<string, Tensor>) => Tensor) {
  const p = Object.fromEntries(Object.entries(shapes).map(([n, s]) => [n, g.input(n, 'float32', s)]));
  const loss = build(p);
  const names = Object.keys(shapes);
  const grads = grad(
    loss,
    names.map((n) => p[n]),
  );
  return runtime.compile(g, { loss, ...Object.fromEntries(names.map((n, i) => [`grad.${n}`, grads[i]])) });
}

async function train(
  step: CompiledGraph,
  params: Params,
  data: Record<string, Float32Array | BigInt64Array | { data: Float32Array; dims: number[] }>,
  opt: AdamW,
  steps: number,
): Promise<number[]> {
  const losses: number[] = [];
  for (let i = 0; i < steps; i++) {
    const out = await step.run({ ...data, ...params });
    losses.push((out.loss.data as Float32Array)[0]);
    const grads = Object.fromEntries(Object.keys(params).map((n) => [n, out[`grad.${n}`].data as Float32Array]));
    opt.update(grads);
  }
  return losses;
}

const mlpShapes = { w1: [2, 32], b1: [32], w2: [32, 1], b2: [1] };

function mlp() {
  const g = new Graph('mlp');
  const x = g.input('x', 'float32', ['B', 2]);
  const y = g.input('y', 'float32', ['B', 1]);
  const step = trainingGraph(g, mlpShapes, (p) => {
    const h = tanh(linear(x, p.w1, p.b1)); // (B, 32)
    const err = sub(linear(h, p.w2, p.b2), y); // (B, 1)
    return reduceMean(mul(err, err), [0, 1]);
  });
  const rand = rng(7);
  const n = 64;
  const xs = Float32Array.from({ length: 2 * n }, () => 2 * rand() - 1);
  const ys = Float32Array.from({ length: n }, (_, i) => Math.sin(3 * xs[2 * i]) * xs[2 * i + 1]);
  return { step, data: { x: { data: xs, dims: [n, 2] }, y: ys } };
}

describe('fitting toy problems', () => {
  it('a 2-layer MLP fits a smooth 2-D function (loss falls >= 10x)', async () => {
    const { step, data } = mlp();
    const params = init(mlpShapes, 1, (s) => 1 / Math.sqrt(s[0]));
    const losses = await train(step, params, data, new AdamW(params, { lr: 0.02, weightDecay: 0 }), 300);
    expect(losses[losses.length - 1]).toBeLessThan(losses[0] / 10);
  });

  it('a causal attention block learns to copy the previous token (loss falls >= 10x)', async () => {
    const [B, T, V, D] = [8, 8, 8, 16];
    const shapes = { emb: [V, D], pos: [T, D], norm: [D], wq: [D, D], wk: [D, D], wv: [D, D], wo: [D, D], out: [D, V] };
    const g = new Graph('attention');
    const ids = g.input('ids', 'int64', ['B', T]);
    const targets = g.input('targets', 'int64', ['B', T]);
    const mask = g.input('mask', 'float32', ['B', T]);
    const heads = (t: Tensor) => transpose(reshape(t, ['B', T, 2, D / 2]), [0, 2, 1, 3]); // (B, 2, T, D/2)
    const step = trainingGraph(g, shapes, (p) => {
      const x = add(embedding(p.emb, ids), p.pos); // (B, T, D)
      const h = rmsNorm(x, p.norm);
      const att = causalAttention(heads(linear(h, p.wq)), heads(linear(h, p.wk)), heads(linear(h, p.wv))); // (B, 2, T, D/2)
      const merged = reshape(transpose(att, [0, 2, 1, 3]), ['B', T, D]); // (B, T, D)
      const y = add(x, linear(merged, p.wo));
      return maskedCrossEntropy(linear(y, p.out), targets, mask);
    });
    const rand = rng(3);
    const tokens = Array.from({ length: B * T }, () => Math.floor(rand() * V));
    const data = {
      ids: BigInt64Array.from(tokens, BigInt),
      targets: BigInt64Array.from(tokens, (_, i) => BigInt(i % T === 0 ? 0 : tokens[i - 1])),
      mask: Float32Array.from(tokens, (_, i) => (i % T === 0 ? 0 : 1)),
    };
    const params = init(shapes, 2, (s) => (s.length === 1 ? 0 : 1 / Math.sqrt(s[0])));
    params.norm.fill(1);
    const opt = new AdamW(params, {
      lr: warmupCosine({ peakLr: 0.03, warmupSteps: 10, totalSteps: 200 }),
      weightDecay: 0,
    });
    const losses = await train(step, params, data, opt, 200);
    expect(losses[losses.length - 1]).toBeLessThan(losses[0] / 10);
  });

  it('a restored optimizer continues a real training run with identical parameters and losses', async () => {
    const { step, data } = mlp();
    const options: AdamWOptions = {
      lr: warmupCosine({ peakLr: 0.02, warmupSteps: 3, totalSteps: 12 }),
      weightDecay: 0.01,
      maxGradNorm: 1,
    };
    const straight = init(mlpShapes, 5, (s) => 1 / Math.sqrt(s[0]));
    const straightLosses = await train(step, straight, data, new AdamW(straight, options), 12);

    const first = init(mlpShapes, 5, (s) => 1 / Math.sqrt(s[0]));
    const opt = new AdamW(first, options);
    const before = await train(step, first, data, opt, 6);
    const checkpoint = structuredClone({ params: first, optimizer: opt.state() });
    const restored = new AdamW(checkpoint.params, options);
    restored.loadState(checkpoint.optimizer);
    const after = await train(step, checkpoint.params, data, restored, 6);

    expect([...before, ...after]).toEqual(straightLosses);
    for (const name of Object.keys(straight))
      expect(Buffer.from(checkpoint.params[name].buffer).equals(Buffer.from(straight[name].buffer))).toBe(true);
  });
});
