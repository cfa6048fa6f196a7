/**
 * The teacher's only randomness: which strategy writes which task's example. A draw depends on (seed, task id)
 * alone, never on the order tasks arrive in, so any subset of a dataset gets the same choices.
 */

/** FNV-1a over UTF-16 code units: a stable 32-bit hash of a string. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A uniform stream in [0, 1) (mulberry32) seeded from the seed and the task id. */
export function drawStream(seed: number, taskId: string): () => number {
  let state = fnv1a(`${seed}\u0000${taskId}`);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
