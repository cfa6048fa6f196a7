import { describe, expect, it } from 'vitest';
import { recursionEfficiency } from './recursion';

describe('recursionEfficiency', () => {
  it('decays linearly to 0 at zeroAtCalls: max(0, 1 − 0.25·calls) by default', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((calls) => recursionEfficiency(calls, { zeroAtCalls: 4 }))).toEqual([
      1, 0.75, 0.5, 0.25, 0, 0, 0,
    ]);
  });

  it('follows the configured zero point', () => {
    expect(recursionEfficiency(5, { zeroAtCalls: 10 })).toBe(0.5);
  });
});
