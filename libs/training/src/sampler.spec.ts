import { describe, expect, it } from 'vitest';
import { EpochSampler } from './sampler';

describe('EpochSampler', () => {
  it('hands out each item once per epoch, in a different order per epoch, continuing across the boundary', () => {
    const s = new EpochSampler(10, 7);
    const first = s.next(6).concat(s.next(4));
    expect([...first].sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(s.position).toEqual({ epoch: 1, offset: 0 });
    const spanning = new EpochSampler(10, 7, { epoch: 0, offset: 8 }).next(4);
    expect(spanning.slice(0, 2)).toEqual(first.slice(8));
    const second = s.next(10);
    expect(second).not.toEqual(first);
    expect(spanning.slice(2)).toEqual(second.slice(0, 2));
  });

  it('continues exactly from a stored position, and depends on the seed', () => {
    const a = new EpochSampler(7, 3);
    a.next(5);
    const b = new EpochSampler(7, 3, a.position);
    expect(b.next(20)).toEqual(a.next(20));
    expect(new EpochSampler(7, 4).next(7)).not.toEqual(new EpochSampler(7, 3).next(7));
  });

  it('rejects a position outside the data', () => {
    expect(() => new EpochSampler(5, 0, { epoch: 0, offset: 5 })).toThrow(/offset 5/);
  });
});

describe('EpochSampler with length bucketing', () => {
  const lengths = Array.from({ length: 50 }, (_, i) => (i * 37) % 101);
  const bucketing = { batchSize: 4, lengths, window: 4 };
  const spread = (batches: number[][]) =>
    batches.reduce((s, b) => s + Math.max(...b.map((i) => lengths[i])) - Math.min(...b.map((i) => lengths[i])), 0);

  it('still hands out every item once per epoch, with batches of similar lengths', () => {
    const s = new EpochSampler(50, 1, undefined, bucketing);
    const plain = new EpochSampler(50, 1);
    const batches = Array.from({ length: 50 }, () => s.next(4));
    const plainBatches = Array.from({ length: 50 }, () => plain.next(4));
    const seen = batches.flat();
    for (let epoch = 0; epoch < 4; epoch++)
      expect([...seen.slice(epoch * 50, epoch * 50 + 50)].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
    expect(spread(batches)).toBeLessThan(0.5 * spread(plainBatches));
  });

  it('continues exactly from a stored position across epoch boundaries', () => {
    const a = new EpochSampler(50, 2, undefined, bucketing);
    for (let i = 0; i < 27; i++) a.next(4);
    const b = new EpochSampler(50, 2, a.position, bucketing);
    expect(Array.from({ length: 40 }, () => b.next(4))).toEqual(Array.from({ length: 40 }, () => a.next(4)));
  });
});
