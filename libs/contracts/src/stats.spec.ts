import { describe, expect, it } from 'vitest';
import { meanStd, median } from './stats';

describe('meanStd', () => {
  it('computes the sample standard deviation (n − 1), 0 for one value and mean 0 for none', () => {
    expect(meanStd([1, 3])).toEqual({ mean: 2, std: Math.SQRT2 });
    expect(meanStd([2, 4, 4, 4, 5, 5, 7, 9]).std).toBeCloseTo(Math.sqrt(32 / 7), 12);
    expect(meanStd([5])).toEqual({ mean: 5, std: 0 });
    expect(meanStd([])).toEqual({ mean: 0, std: 0 });
  });
});

describe('median', () => {
  it('takes the middle value, the mean of the two middle ones for an even count, and 0 for none', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBe(0);
  });

  it('leaves its argument unsorted', () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});
