import { describe, expect, it } from 'vitest';
import { NUL_REPLACEMENT, withoutNul } from './text';

describe('withoutNul', () => {
  it('replaces NUL in strings at any depth, keys included, and leaves everything else alone', () => {
    const date = new Date(0);
    const value = { a: 'x\u0000y', list: ['\u0000', 1, null, true], nested: { 'k\u0000': 'ok' }, date, n: 2n };
    expect(withoutNul(value)).toEqual({
      a: `x${NUL_REPLACEMENT}y`,
      list: [NUL_REPLACEMENT, 1, null, true],
      nested: { [`k${NUL_REPLACEMENT}`]: 'ok' },
      date,
      n: 2n,
    });
    expect(withoutNul(value).date).toBe(date);
    expect(withoutNul('clean')).toBe('clean');
  });
});
