import { describe, expect, it } from 'vitest';
import { DocumentCache, documentSha256 } from './document.cache';

describe('DocumentCache', () => {
  it('keeps a document only under its own SHA-256', () => {
    const cache = new DocumentCache(1024);
    const text = 'The van is crimson.';
    expect(documentSha256(text)).toMatch(/^[0-9a-f]{64}$/);
    expect(cache.store(documentSha256('another text'), text)).toBe(false);
    expect(cache.size).toBe(0);
    expect(cache.store(documentSha256(text), text)).toBe(true);
    expect(cache.get(documentSha256(text))).toBe(text);
    // Hashed over UTF-8 bytes, as clients in other languages hash it.
    expect(documentSha256('café')).toBe('850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e');
  });

  it('drops the least recently used documents once their text passes the budget', () => {
    const cache = new DocumentCache(60);
    const [a, b, c] = ['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10)];
    for (const text of [a, b, c]) cache.store(documentSha256(text), text);
    expect(cache.size).toBe(3);
    expect(cache.get(documentSha256(a))).toBe(a);
    const d = 'd'.repeat(10);
    cache.store(documentSha256(d), d);
    // 4 × 20 bytes > 60: b, the least recently used, goes.
    expect(cache.get(documentSha256(b))).toBeUndefined();
    expect([a, c, d].map((t) => cache.get(documentSha256(t)))).toEqual([a, c, d]);
    // A document larger than the whole budget is not kept, and drops nothing.
    const big = 'e'.repeat(40);
    expect(cache.store(documentSha256(big), big)).toBe(true);
    expect(cache.has(documentSha256(big))).toBe(false);
    expect(cache.get(documentSha256(big))).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it('keeps nothing with a budget of 0', () => {
    const cache = new DocumentCache(0);
    expect(cache.store(documentSha256('x'), 'x')).toBe(true);
    expect(cache.get(documentSha256('x'))).toBeUndefined();
  });
});
