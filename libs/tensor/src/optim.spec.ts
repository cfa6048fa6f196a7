import { describe, expect, it } from 'vitest';
import {
  AdamW,
  adamWStateFromTensors,
  adamWStateToTensors,
  clipGradNorm,
  constantLr,
  globalGradNorm,
  warmupCosine,
  warmupLinear,
} from './optim';

describe('learning-rate schedules', () => {
  it('warms up linearly, then decays by cosine to minLr and stays there', () => {
    const s = warmupCosine({ peakLr: 1, warmupSteps: 4, totalSteps: 14, minLr: 0.1 });
    expect([1, 2, 4].map(s)).toEqual([0.25, 0.5, 1]);
    expect(s(9)).toBeCloseTo(0.55, 12); // half-way: min + (peak - min) / 2
    expect(s(14)).toBeCloseTo(0.1, 12);
    expect(s(100)).toBeCloseTo(0.1, 12);
  });

  it('decays linearly after warmup', () => {
    const s = warmupLinear({ peakLr: 2, warmupSteps: 2, totalSteps: 6 });
    expect([1, 2, 3, 4, 6, 7].map(s)).toEqual([1, 2, 1.5, 1, 0, 0]);
    expect(constantLr(0.3)(99)).toBe(0.3);
  });
});

describe('gradient clipping', () => {
  it('scales all gradients to the global max norm and reports the norm before', () => {
    const grads = { a: new Float32Array([3, 0]), b: new Float32Array([4]) };
    expect(clipGradNorm(grads, 1)).toBe(5);
    expect(Array.from(grads.a)).toEqual([Math.fround(0.6), 0]);
    expect(globalGradNorm(grads)).toBeCloseTo(1, 6);
    expect(clipGradNorm(grads, 10)).toBeCloseTo(1, 6); // below the limit: untouched
  });
});

describe('AdamW', () => {
  it('matches a hand-computed update with bias correction and decoupled decay', () => {
    const p = { w: new Float32Array([1, -2]) };
    const opt = new AdamW(p, { lr: 0.1, weightDecay: 0.5, eps: 0 });
    const info = opt.update({ w: new Float32Array([0.2, -0.4]) });
    // Step 1: m̂ = g, v̂ = g², so the Adam step is lr * sign(g); decay multiplies p by 1 - lr * wd first.
    expect(Array.from(p.w)).toEqual([Math.fround(1 * 0.95 - 0.1), Math.fround(-2 * 0.95 + 0.1)]);
    expect(info).toEqual({ step: 1, lr: 0.1, gradNorm: expect.closeTo(Math.hypot(0.2, 0.4), 6) });
    opt.update({ w: new Float32Array([0.2, -0.4]) });
    expect(opt.step).toBe(2);
  });

  it('skips decay for excluded parameters and clips before the update', () => {
    const p = { w: new Float32Array([1]), b: new Float32Array([1]) };
    const opt = new AdamW(p, { lr: 0.1, weightDecay: 1, decays: (n) => n !== 'b', maxGradNorm: 0.5 });
    const grads = { w: new Float32Array([0]), b: new Float32Array([2]) };
    expect(opt.update(grads).gradNorm).toBe(2);
    // The moments see the clipped gradient (norm 2 → 0.5); the caller's gradients are left as they were.
    expect(opt.state().m.b[0]).toBeCloseTo((1 - 0.9) * 0.5, 6);
    expect(opt.state().v.b[0]).toBeCloseTo((1 - 0.999) * 0.25, 6);
    expect(grads.b[0]).toBe(2);
    expect(p.w[0]).toBeCloseTo(0.9, 6);
    expect(p.b[0]).toBeCloseTo(0.9, 6);
  });

  it('rejects missing gradients and mismatched state', () => {
    const opt = new AdamW({ w: new Float32Array(2) }, { lr: 0.1 });
    expect(() => opt.update({})).toThrow(/gradient 'w'/);
    expect(() => opt.loadState({ step: 1, m: { w: new Float32Array(3) }, v: { w: new Float32Array(2) } })).toThrow(
      /m\['w'\]/,
    );
  });

  it('continues bit-identically from a restored state', () => {
    const target = Float32Array.from({ length: 64 }, (_, i) => Math.sin(i));
    const gradOf = (w: Float32Array) => ({ w: w.map((v, i) => 2 * (v - target[i]) + 0.01 * Math.cos(i * v)) });
    const options = { lr: warmupCosine({ peakLr: 0.05, warmupSteps: 3, totalSteps: 20 }), maxGradNorm: 1 };

    const straight = { w: new Float32Array(64) };
    const a = new AdamW(straight, options);
    for (let i = 0; i < 20; i++) a.update(gradOf(straight.w));

    const resumed = { w: new Float32Array(64) };
    const b = new AdamW(resumed, options);
    for (let i = 0; i < 9; i++) b.update(gradOf(resumed.w));
    const checkpoint = structuredClone({ params: resumed.w, tensors: adamWStateToTensors(b.state()), step: b.step });
    expect(Object.keys(checkpoint.tensors).sort()).toEqual(['adamw.m.w', 'adamw.v.w']);
    const c = new AdamW({ w: checkpoint.params }, options);
    c.loadState(adamWStateFromTensors(checkpoint.tensors, checkpoint.step));
    for (let i = 9; i < 20; i++) c.update(gradOf(checkpoint.params));

    expect(c.step).toBe(20);
    expect(Buffer.from(checkpoint.params.buffer).equals(Buffer.from(straight.w.buffer))).toBe(true);
    expect(Buffer.from(c.state().v.w.buffer).equals(Buffer.from(a.state().v.w.buffer))).toBe(true);
  });
});
