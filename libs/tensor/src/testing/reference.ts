/**
 * A naive float64 n-d array and obviously-correct loops for every op, used by the tests as the reference for
 * values and (through central finite differences) for gradients. Not part of the public API.
 */
export class ND {
  constructor(
    readonly shape: number[],
    readonly data: Float64Array,
  ) {
    if (data.length !== size(shape)) throw new Error(`ND: ${data.length} values for [${shape}]`);
  }
  static of(shape: number[], values: ArrayLike<number>): ND {
    return new ND(shape, Float64Array.from(values));
  }
  static fill(shape: number[], f: (flat: number, idx: number[]) => number): ND {
    const out = new ND(shape, new Float64Array(size(shape)));
    for (let i = 0; i < out.data.length; i++) out.data[i] = f(i, unravel(i, shape));
    return out;
  }
  at(idx: number[]): number {
    return this.data[ravel(idx, this.shape)];
  }
}

export const size = (shape: readonly number[]): number => shape.reduce((a, b) => a * b, 1);

export function unravel(flat: number, shape: readonly number[]): number[] {
  const idx = new Array<number>(shape.length);
  for (let i = shape.length - 1; i >= 0; i--) {
    idx[i] = flat % shape[i];
    flat = Math.floor(flat / shape[i]);
  }
  return idx;
}

export function ravel(idx: readonly number[], shape: readonly number[]): number {
  let flat = 0;
  for (let i = 0; i < shape.length; i++) flat = flat * shape[i] + idx[i];
  return flat;
}

function broadcastShape(...shapes: number[][]): number[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  return Array.from({ length: rank }, (_, i) => Math.max(...shapes.map((s) => s[s.length - rank + i] ?? 1)));
}

/** Value of `a` at an index of the broadcast output shape. */
function bcastAt(a: ND, idx: number[]): number {
  const off = idx.length - a.shape.length;
  return a.at(a.shape.map((d, i) => (d === 1 ? 0 : idx[off + i])));
}

export function map(f: (...v: number[]) => number, ...xs: ND[]): ND {
  const shape = broadcastShape(...xs.map((x) => x.shape));
  return ND.fill(shape, (_, idx) => f(...xs.map((x) => bcastAt(x, idx))));
}

export function matmul(a: ND, b: ND): ND {
  const batch = broadcastShape(a.shape.slice(0, -2), b.shape.slice(0, -2));
  const [m, k] = a.shape.slice(-2);
  const n = b.shape[b.shape.length - 1];
  return ND.fill([...batch, m, n], (_, idx) => {
    const bi = idx.slice(0, -2);
    const [i, j] = idx.slice(-2);
    let s = 0;
    for (let p = 0; p < k; p++) s += bcastAt(a, [...bi, i, p]) * bcastAt(b, [...bi, p, j]);
    return s;
  });
}

export function reduce(x: ND, axes: number[], keepdims: boolean, kind: 'sum' | 'mean' | 'max'): ND {
  const ax = axes.map((a) => (a < 0 ? a + x.shape.length : a));
  const kept = x.shape.map((d, i) => (ax.includes(i) ? 1 : d));
  const acc = new Float64Array(size(kept)).fill(kind === 'max' ? -Infinity : 0);
  for (let i = 0; i < x.data.length; i++) {
    const o = ravel(
      unravel(i, x.shape).map((v, k) => (ax.includes(k) ? 0 : v)),
      kept,
    );
    acc[o] = kind === 'max' ? Math.max(acc[o], x.data[i]) : acc[o] + x.data[i];
  }
  if (kind === 'mean') {
    const n = size(ax.map((a) => x.shape[a]));
    for (let i = 0; i < acc.length; i++) acc[i] /= n;
  }
  return new ND(keepdims ? kept : x.shape.filter((_, i) => !ax.includes(i)), acc);
}

export const reshape = (x: ND, shape: number[]): ND => new ND(shape, x.data);

export function transpose(x: ND, perm: number[]): ND {
  return ND.fill(
    perm.map((p) => x.shape[p]),
    (_, idx) => {
      const src = new Array<number>(idx.length);
      perm.forEach((p, i) => (src[p] = idx[i]));
      return x.at(src);
    },
  );
}

export function slice(x: ND, starts: number[], ends: number[], axes: number[]): ND {
  const lo = x.shape.map(() => 0);
  const hi = [...x.shape];
  axes.forEach((a, i) => {
    const d = x.shape[a];
    const clamp = (v: number) => Math.min(Math.max(v < 0 ? v + d : v, 0), d);
    lo[a] = clamp(starts[i]);
    hi[a] = Math.max(lo[a], clamp(ends[i] === Infinity ? d : ends[i]));
  });
  return ND.fill(
    hi.map((h, i) => h - lo[i]),
    (_, idx) => x.at(idx.map((v, i) => v + lo[i])),
  );
}

export function concat(xs: ND[], axis: number): ND {
  const shape = [...xs[0].shape];
  shape[axis] = xs.reduce((s, x) => s + x.shape[axis], 0);
  return ND.fill(shape, (_, idx) => {
    let p = idx[axis];
    for (const x of xs) {
      if (p < x.shape[axis]) return x.at(idx.map((v, i) => (i === axis ? p : v)));
      p -= x.shape[axis];
    }
    throw new Error('concat index');
  });
}

export function gather(data: ND, indices: ND, axis: number): ND {
  const shape = [...data.shape.slice(0, axis), ...indices.shape, ...data.shape.slice(axis + 1)];
  const r = indices.shape.length;
  return ND.fill(shape, (_, idx) => {
    const j = indices.at(idx.slice(axis, axis + r));
    return data.at([...idx.slice(0, axis), j < 0 ? j + data.shape[axis] : j, ...idx.slice(axis + r)]);
  });
}

export function gatherElements(data: ND, indices: ND, axis: number): ND {
  return ND.fill([...indices.shape], (_, idx) => data.at(idx.map((v, i) => (i === axis ? indices.at(idx) : v))));
}

export const expand = (x: ND, shape: number[]): ND => map((v) => v, x, new ND(shape, new Float64Array(size(shape))));

export function trilu(x: ND, upper: boolean, k: number): ND {
  return ND.fill([...x.shape], (flat, idx) => {
    const [i, j] = idx.slice(-2);
    return (upper ? j >= i + k : j <= i + k) ? x.data[flat] : 0;
  });
}

/** Softmax over the last axis with plain loops. */
export function softmax(x: ND): ND {
  const n = x.shape[x.shape.length - 1];
  const out = new Float64Array(x.data.length);
  for (let r = 0; r < x.data.length; r += n) {
    let max = -Infinity;
    for (let i = 0; i < n; i++) max = Math.max(max, x.data[r + i]);
    let s = 0;
    for (let i = 0; i < n; i++) s += Math.exp(x.data[r + i] - max);
    for (let i = 0; i < n; i++) out[r + i] = Math.exp(x.data[r + i] - max) / s;
  }
  return new ND([...x.shape], out);
}

/** Causal attention on (B, H, T, D) / (B, H, S, D) with loops; keyMask (B, S) of 0/1 if given. */
export function attention(q: ND, k: ND, v: ND, keyMask?: ND): ND {
  const [b, h, t, d] = q.shape;
  const s = k.shape[2];
  return ND.fill([b, h, t, d], (_, [bi, hi, i, c]) => {
    const scores: number[] = [];
    for (let j = 0; j < s; j++) {
      let dot = 0;
      for (let p = 0; p < d; p++) dot += q.at([bi, hi, i, p]) * k.at([bi, hi, j, p]);
      const ok = j <= i + (s - t) && (!keyMask || keyMask.at([bi, j]) === 1);
      scores.push(ok ? dot / Math.sqrt(d) : -Infinity);
    }
    const max = Math.max(...scores);
    const w = scores.map((z) => Math.exp(z - max));
    const total = w.reduce((a, z) => a + z, 0);
    let out = 0;
    for (let j = 0; j < s; j++) out += (w[j] / total) * v.at([bi, hi, j, c]);
    return out;
  });
}

/** erf to ~1e-15 (series for small |x|, continued fraction beyond), enough for float64 finite differences. */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 2.5) {
    let term = ax;
    let sum = ax;
    for (let n = 1; n < 80; n++) {
      term *= (-ax * ax) / n;
      sum += term / (2 * n + 1);
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = 0;
  for (let n = 60; n >= 1; n--) f = n / 2 / (ax + f);
  return Math.sign(x) * (1 - Math.exp(-ax * ax) / Math.sqrt(Math.PI) / (ax + f));
}

/** Seeded uniform generator (mulberry32) so every test sees the same numbers. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
