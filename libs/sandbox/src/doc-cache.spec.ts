import { describe, expect, it } from 'vitest';
import { DocCache } from './doc-cache';

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
});
