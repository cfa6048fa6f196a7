/**
 * FATHOM's one source of seeded randomness. No Math.random in anything that must reproduce: the same seed gives the
 * same stream on every machine, so datasets are byte-identical and runs resume exactly. The stream is mulberry32
 * (32-bit state): fast, platform-independent, good enough for sampling, initialisation, shuffles and data.
 */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next unsigned 32-bit integer (mulberry32). */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform float in [0, 1). */
  float(): number {
    return this.nextU32() / 4294967296;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    const u = 1 - this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.float());
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)];
  }

  /** An element of `items` different from `avoid` (items must hold at least two distinct values). */
  pickOther<T>(items: readonly T[], avoid: T): T {
    for (;;) {
      const item = this.pick(items);
      if (item !== avoid) return item;
    }
  }

  /** `count` distinct elements in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    return this.shuffle([...items]).slice(0, count);
  }

  /** Fisher–Yates, in place; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      const tmp = items[i];
      items[i] = items[j];
      items[j] = tmp;
    }
    return items;
  }
}

/** FNV-1a over UTF-16 code units: a stable 32-bit hash of a string. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * A 32-bit seed derived from any list of parts (FNV-1a over their text, then a splitmix-style finaliser so nearby
 * inputs such as consecutive task indices give unrelated streams).
 */
export function deriveSeed(...parts: (string | number)[]): number {
  let h = fnv1a(parts.join('\u241f'));
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
