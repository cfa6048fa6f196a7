import { fnv1a, Rng } from '@fathom/contracts';

/**
 * The teacher's only randomness: which strategy writes which task's example. A draw depends on (seed, task id)
 * alone, never on the order tasks arrive in, so any subset of a dataset gets the same choices.
 */

/** A uniform stream in [0, 1) (`Rng`) seeded from the seed and the task id. */
export function drawStream(seed: number, taskId: string): () => number {
  const rng = new Rng(fnv1a(`${seed}\u0000${taskId}`));
  return () => rng.float();
}
