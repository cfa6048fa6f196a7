import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from './random';

describe('Rng', () => {
  it('repeats its stream for a seed and differs across seeds', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const c = new Rng(43);
    const streamA = Array.from({ length: 8 }, () => a.nextU32());
    expect(Array.from({ length: 8 }, () => b.nextU32())).toEqual(streamA);
    expect(Array.from({ length: 8 }, () => c.nextU32())).not.toEqual(streamA);
  });

  it('draws integers uniformly over an inclusive range', () => {
    const rng = new Rng(7);
    const counts = [0, 0, 0, 0, 0, 0];
    for (let i = 0; i < 60_000; i++) counts[rng.int(0, 5)]++;
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(500);
  });

  it('shuffles into a permutation and samples distinct elements', () => {
    const rng = new Rng(9);
    const items = Array.from({ length: 50 }, (_, i) => i);
    const shuffled = rng.shuffle([...items]);
    expect(shuffled).not.toEqual(items);
    expect([...shuffled].sort((x, y) => x - y)).toEqual(items);
    expect(new Set(rng.sample(items, 10)).size).toBe(10);
    expect(rng.pickOther([1, 2], 1)).toBe(2);
  });
});

describe('deriveSeed', () => {
  it('is stable and separates neighbouring inputs', () => {
    expect(deriveSeed('task', 1, 'train', 0)).toBe(deriveSeed('task', 1, 'train', 0));
    const seeds = new Set(Array.from({ length: 1000 }, (_, i) => deriveSeed('task', 1, 'train', i)));
    expect(seeds.size).toBe(1000);
    expect(deriveSeed('task', 1, 'train', 0)).not.toBe(deriveSeed('task', 1, 'eval', 0));
  });
});
