import { TensorError } from './errors';

/**
 * One dimension of a symbolic shape: a size known when the graph is built, or the name of a dimension bound when
 * the graph runs ('B', 'T'). A product of names and numbers written with '*' ('B*T') is a dimension too; reshape
 * derives such names when it merges dimensions.
 */
export type Dim = number | string;
export type Shape = readonly Dim[];

interface Factors {
  n: number;
  names: string[];
}

function factors(d: Dim): Factors {
  if (typeof d === 'number') return { n: d, names: [] };
  const out: Factors = { n: 1, names: [] };
  for (const part of d.split('*').map((p) => p.trim())) {
    if (/^\d+$/.test(part)) out.n *= Number(part);
    else out.names.push(part);
  }
  out.names.sort();
  return out;
}

function fromFactors(f: Factors): Dim {
  if (f.names.length === 0) return f.n;
  return f.n === 1 ? f.names.join('*') : [String(f.n), ...f.names].join('*');
}

/** Canonical form of a dimension, so 'T*B', 'B*T' and 'B * T' compare equal. */
export function normDim(d: Dim): Dim {
  return fromFactors(factors(d));
}

export const sameDim = (a: Dim, b: Dim): boolean => normDim(a) === normDim(b);

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => sameDim(d, b[i]));
}

/** Product of dimensions, symbolic where needed. */
export function dimProduct(dims: Shape): Dim {
  const f: Factors = { n: 1, names: [] };
  for (const d of dims) {
    const x = factors(d);
    f.n *= x.n;
    f.names.push(...x.names);
  }
  f.names.sort();
  return fromFactors(f);
}

/** `a / b` symbolically, or undefined when b's names are not all in a or the numbers do not divide. */
export function dimQuotient(a: Dim, b: Dim): Dim | undefined {
  const fa = factors(a);
  const fb = factors(b);
  if (fa.n % fb.n !== 0) return undefined;
  const names = [...fa.names];
  for (const name of fb.names) {
    const i = names.indexOf(name);
    if (i < 0) return undefined;
    names.splice(i, 1);
  }
  return fromFactors({ n: fa.n / fb.n, names });
}

export const shapeToString = (s: Shape): string => `[${s.join(', ')}]`;

/** Numpy-style broadcast of symbolic shapes; a named dimension only broadcasts against 1 or itself. */
export function broadcastShapes(op: string, ...shapes: Shape[]): Dim[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    let dim: Dim = 1;
    for (const s of shapes) {
      const d = s[s.length - rank + i] ?? 1;
      if (d === 1) continue;
      if (dim === 1) dim = d;
      else if (!sameDim(dim, d))
        throw new TensorError('SHAPE_MISMATCH', `${op} cannot broadcast ${shapes.map(shapeToString).join(' with ')}`);
    }
    out.push(normDim(dim));
  }
  return out;
}

/** Resolves a possibly negative axis against a rank, with a clear error when it is out of range. */
export function normAxis(op: string, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) throw new TensorError('SHAPE_MISMATCH', `${op}: axis ${axis} out of range for rank ${rank}`);
  return a;
}
