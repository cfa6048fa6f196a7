import { describe, expect, it } from 'vitest';
import { Graph } from './graph';
import { add, concat, gather, matmul, reduceSum, reshape, slice, where } from './ops';
import { broadcastShapes, dimQuotient, normDim } from './shape';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
};

describe('symbolic shapes', () => {
  it('canonicalises products of named dims and divides them', () => {
    expect(normDim('T * B')).toBe('B*T');
    expect(normDim('2*B*3')).toBe('6*B');
    expect(dimQuotient('B*T', 'T')).toBe('B');
    expect(dimQuotient('B', 'T')).toBeUndefined();
    expect(broadcastShapes('t', ['B', 1, 3], [4, 1])).toEqual(['B', 4, 3]);
  });

  it('infers shapes through reshape, slice and concat with named dims', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', ['B', 'T', 8]);
    expect(reshape(x, [-1, 8]).shape).toEqual(['B*T', 8]);
    expect(reshape(x, ['B', 'T', 2, 4]).shape).toEqual(['B', 'T', 2, 4]);
    expect(slice(x, [-1], [Infinity], [1]).shape).toEqual(['B', 1, 8]);
    expect(slice(x, [1], [Infinity], [1]).shape).toEqual(['B', 'T-1', 8]);
    expect(slice(x, [-2], [1e12], [1]).shape).toEqual(['B', 2, 8]);
    const past = g.input('past', 'float32', ['B', 'P', 8]);
    expect(concat([past, x], 1).shape).toEqual(['B', 'P+T', 8]);
    expect(gather(g.input('emb', 'float32', [10, 8]), g.input('ids', 'int64', ['B', 'T'])).shape).toEqual([
      'B',
      'T',
      8,
    ]);
  });

  it('rejects mismatches when the op is built', () => {
    const g = new Graph();
    const x = g.input('x', 'float32', ['B', 3]);
    const y = g.input('y', 'float32', ['T', 3]);
    const ids = g.input('ids', 'int64', [3]);
    expect(codeOf(() => add(x, y))).toBe('SHAPE_MISMATCH');
    expect(codeOf(() => add(x, g.input('z', 'float32', [4])))).toBe('SHAPE_MISMATCH');
    expect(codeOf(() => matmul(x, g.input('w', 'float32', [4, 2])))).toBe('SHAPE_MISMATCH');
    expect(codeOf(() => reshape(x, [5, -1]))).toBe('SHAPE_MISMATCH');
    expect(codeOf(() => reduceSum(x, []))).toBe('SHAPE_MISMATCH');
    expect(codeOf(() => add(x, ids))).toBe('DTYPE_MISMATCH');
    expect(codeOf(() => where(ids, x, x))).toBe('DTYPE_MISMATCH');
    expect(codeOf(() => add(x, new Graph().input('x', 'float32', [3])))).toBe('INVALID_GRAPH');
    expect(codeOf(() => g.input('x', 'float32', [1]))).toBe('INVALID_GRAPH');
    expect(codeOf(() => g.initializer('w0', 'float32', [2, 2], new Float32Array(3)))).toBe('INVALID_GRAPH');
  });
});
