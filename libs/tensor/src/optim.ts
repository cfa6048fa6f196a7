/** AdamW, gradient clipping and learning-rate schedules on Float32Arrays (parameters are updated in place). */
import { TensorError } from './errors';

/** Learning rate for update number `step` (1-based). */
export type LrSchedule = (step: number) => number;

export const constantLr =
  (lr: number): LrSchedule =>
  () =>
    lr;

export interface WarmupDecayOptions {
  peakLr: number;
  /** Updates of linear warmup from 0 to peakLr. */
  warmupSteps: number;
  /** Update at which the decay reaches minLr (and stays). */
  totalSteps: number;
  minLr?: number;
}

function decayProgress(step: number, o: WarmupDecayOptions): number | undefined {
  if (step <= o.warmupSteps) return undefined;
  return Math.min(1, (step - o.warmupSteps) / Math.max(1, o.totalSteps - o.warmupSteps));
}

/** Linear warmup, then cosine decay from peakLr to minLr. */
export function warmupCosine(o: WarmupDecayOptions): LrSchedule {
  const min = o.minLr ?? 0;
  return (step) => {
    const p = decayProgress(step, o);
    return p === undefined
      ? (o.peakLr * step) / o.warmupSteps
      : min + (o.peakLr - min) * 0.5 * (1 + Math.cos(Math.PI * p));
  };
}

/** Linear warmup, then linear decay from peakLr to minLr. */
export function warmupLinear(o: WarmupDecayOptions): LrSchedule {
  const min = o.minLr ?? 0;
  return (step) => {
    const p = decayProgress(step, o);
    return p === undefined ? (o.peakLr * step) / o.warmupSteps : o.peakLr + (min - o.peakLr) * p;
  };
}

/** sqrt of the sum of squares of every gradient, accumulated in float64. */
export function globalGradNorm(grads: Readonly<Record<string, Float32Array>>): number {
  let sum = 0;
  for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) sum += g[i] * g[i];
  return Math.sqrt(sum);
}

/** Scales all gradients in place so their global norm is at most maxNorm; returns the norm before clipping. */
export function clipGradNorm(grads: Readonly<Record<string, Float32Array>>, maxNorm: number): number {
  const norm = globalGradNorm(grads);
  if (norm > maxNorm && norm > 0) {
    const scale = maxNorm / norm;
    for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) g[i] *= scale;
  }
  return norm;
}

export interface AdamWOptions {
  /** A fixed rate or a schedule of the update number. */
  lr: number | LrSchedule;
  beta1?: number;
  beta2?: number;
  eps?: number;
  /** Decoupled weight decay (p -= lr * weightDecay * p), default 0.01. */
  weightDecay?: number;
  /** Clip the global gradient norm to this before the update (off when absent). */
  maxGradNorm?: number;
  /** Which parameters decay; default all. Norm weights and biases are commonly excluded. */
  decays?: (name: string) => boolean;
}

/** Everything needed to continue training bit-identically: the update count and both moments per parameter. */
export interface AdamWState {
  step: number;
  m: Record<string, Float32Array>;
  v: Record<string, Float32Array>;
}

export interface AdamWStepInfo {
  step: number;
  lr: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
}

/**
 * AdamW (Loshchilov & Hutter) with bias correction, updating the given Float32Arrays in place; the same arrays can
 * be fed to a compiled graph as trainable inputs at no copy. Arithmetic is float64 per element, stored as float32,
 * so a restored state continues with bit-identical results.
 */
export class AdamW {
  private readonly o: Required<Omit<AdamWOptions, 'maxGradNorm'>> & { maxGradNorm?: number };
  private stepCount = 0;
  private readonly m: Record<string, Float32Array> = {};
  private readonly v: Record<string, Float32Array> = {};

  constructor(
    readonly params: Readonly<Record<string, Float32Array>>,
    options: AdamWOptions,
  ) {
    this.o = { beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0.01, decays: () => true, ...options };
    for (const [name, p] of Object.entries(params)) {
      this.m[name] = new Float32Array(p.length);
      this.v[name] = new Float32Array(p.length);
    }
  }

  get step(): number {
    return this.stepCount;
  }

  lrAt(step: number): number {
    return typeof this.o.lr === 'number' ? this.o.lr : this.o.lr(step);
  }

  /** One update from gradients named like the parameters (every parameter needs one); the gradients are not modified. */
  update(grads: Readonly<Record<string, Float32Array>>): AdamWStepInfo {
    for (const name of Object.keys(this.params)) {
      const g = grads[name];
      if (!g || g.length !== this.params[name].length)
        throw new TensorError('INVALID_STATE', `gradient '${name}' is missing or has the wrong length`);
    }
    const { beta1, beta2, eps, weightDecay, decays, maxGradNorm } = this.o;
    const gradNorm = globalGradNorm(grads);
    // Clipping is folded into the update's one pass over the gradients instead of rewriting them first.
    const scale = maxGradNorm !== undefined && gradNorm > maxGradNorm && gradNorm > 0 ? maxGradNorm / gradNorm : 1;
    const t = ++this.stepCount;
    const lr = this.lrAt(t);
    // Per element: p ← p·shrink − step·m / (√v + eps·√c2), the bias corrections hoisted out of the loop.
    const c1 = 1 - beta1 ** t;
    const sqrtC2 = Math.sqrt(1 - beta2 ** t);
    const step = (lr * sqrtC2) / c1;
    const epsScaled = eps * sqrtC2;
    const [a1, a2] = [1 - beta1, 1 - beta2];
    for (const [name, p] of Object.entries(this.params)) {
      const g = grads[name];
      const m = this.m[name];
      const v = this.v[name];
      const shrink = decays(name) ? 1 - lr * weightDecay : 1;
      for (let i = 0; i < p.length; i++) {
        const gi = g[i] * scale;
        const mi = beta1 * m[i] + a1 * gi;
        const vi = beta2 * v[i] + a2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = p[i] * shrink - (step * mi) / (Math.sqrt(vi) + epsScaled);
      }
    }
    return { step: t, lr, gradNorm };
  }

  /** A copy of the state (safe to serialise while training continues). */
  state(): AdamWState {
    const copy = (r: Record<string, Float32Array>) =>
      Object.fromEntries(Object.entries(r).map(([k, a]) => [k, a.slice()]));
    return { step: this.stepCount, m: copy(this.m), v: copy(this.v) };
  }

  /** Restores a state saved by `state()` for the same parameter names and sizes. */
  loadState(state: AdamWState): void {
    if (!Number.isInteger(state.step) || state.step < 0)
      throw new TensorError('INVALID_STATE', `step must be a non-negative integer, got ${state.step}`);
    for (const name of Object.keys(this.params))
      for (const [moment, r] of [['m', state.m] as const, ['v', state.v] as const]) {
        const a = r[name];
        if (!(a instanceof Float32Array) || a.length !== this.params[name].length)
          throw new TensorError('INVALID_STATE', `${moment}['${name}'] is missing or has the wrong length`);
      }
    for (const name of Object.keys(this.params)) {
      this.m[name].set(state.m[name]);
      this.v[name].set(state.v[name]);
    }
    this.stepCount = state.step;
  }
}

/**
 * Flattens a state into named tensors ('adamw.m.<param>', 'adamw.v.<param>') for a tensor file such as
 * safetensors; the step travels separately (e.g. in the file's metadata).
 */
export function adamWStateToTensors(state: AdamWState): Record<string, Float32Array> {
  const out: Record<string, Float32Array> = {};
  for (const [name, a] of Object.entries(state.m)) out[`adamw.m.${name}`] = a;
  for (const [name, a] of Object.entries(state.v)) out[`adamw.v.${name}`] = a;
  return out;
}

/** The inverse of `adamWStateToTensors`; tensors without the 'adamw.' prefix are ignored. */
export function adamWStateFromTensors(tensors: Readonly<Record<string, Float32Array>>, step: number): AdamWState {
  const state: AdamWState = { step, m: {}, v: {} };
  for (const [key, a] of Object.entries(tensors)) {
    const match = /^adamw\.([mv])\.(.+)$/.exec(key);
    if (match) state[match[1] as 'm' | 'v'][match[2]] = a;
  }
  return state;
}
