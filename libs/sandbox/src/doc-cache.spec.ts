import { describe, expect, it } from 'vitest';
import { DocCache, documentSha256 } from './doc-cache';

describe('DocCache', () => {
  it('evicts the least recently used document first', () => {
    const cache = new DocCache(2);
    cache.set('a', 'A');
    cache.set('b', 'B');
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C');
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
  });

  it('replaces the document of a reused key', () => {
    const cache = new DocCache(2);
    cache.set('a', 'old');
    cache.set('a', 'new');
    expect(cache.get('a')).toBe('new');
  });

  it('drops the least recently used documents once their text passes the byte budget', () => {
    const cache = new DocCache(Infinity, 60);
    const [a, b, c] = ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10)];
    for (const text of [a, b, c]) cache.set(text, text);
    expect(cache.size).toBe(3);
    expect(cache.get(a)).toBe(a);
    const d = 'd'.repeat(10);
    cache.set(d, d);
    // 4 × 20 bytes > 60: b, the least recently used, goes.
    expect(cache.get(b)).toBeUndefined();
    expect([a, c, d].map((t) => cache.get(t))).toEqual([a, c, d]);
    // A document larger than the whole budget is not kept, and drops nothing.
    const big = 'e'.repeat(40);
    cache.set(big, big);
    expect(cache.has(big)).toBe(false);
    expect(cache.get(big)).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it('keeps nothing with a byte budget of 0', () => {
    const cache = new DocCache(Infinity, 0);
    cache.set('x', 'x');
    expect(cache.get('x')).toBeUndefined();
  });
});

describe('documentSha256', () => {
  it('is the SHA-256 of the UTF-8 bytes as lowercase hex, as clients in other languages compute it', () => {
    expect(documentSha256('The van is crimson.')).toMatch(/^[0-9a-f]{64}$/);
    expect(documentSha256('café')).toBe('850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e');
  });
});
