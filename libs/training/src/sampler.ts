import { Rng } from '@fathom/contracts';
import { TrainingError } from './errors';

/** Where a sampler stands: the epoch it draws from and how many of that epoch's items it has handed out. */
export interface DataPosition {
  epoch: number;
  offset: number;
}

/** A 32-bit seed for a (seed, stream) pair, so each epoch's shuffle is independent and needs no stored RNG state. */
export function streamSeed(seed: number, stream: number): number {
  return (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
}

/** 0 … n−1 in the order `rng` shuffles them (Fisher–Yates). */
export function permutation(n: number, rng: Rng): number[] {
  return rng.shuffle(Array.from({ length: n }, (_, i) => i));
}

/** Length bucketing: batches of similar lengths waste less padding. */
export interface Bucketing {
  /** Items per batch (the `n` every `next` call asks for). */
  batchSize: number;
  /** Length of each item (tokens), indexed like the data. */
  lengths: readonly number[];
  /** Batches per bucket window: each window of the shuffle is sorted by length, cut into batches, and those shuffled. */
  window: number;
}

/**
 * Hands out dataset indices in a fresh seeded shuffle per epoch; a batch that reaches the end of an epoch
 * continues into the next one, so every batch is full. The order depends only on (size, seed, epoch) and the
 * bucketing, so the position alone restores it exactly: a resumed run neither repeats nor skips an item.
 *
 * With bucketing, each window of `window × batchSize` shuffled items is sorted by length and cut into batches
 * whose order is shuffled again; windows are aligned to the global batch boundaries (which fall at multiples of
 * batchSize counted from the first item of epoch 0), so every batch is drawn from one window.
 */
export class EpochSampler {
  private epoch: number;
  private offset: number;
  private order: number[];

  constructor(
    readonly size: number,
    readonly seed: number,
    position: DataPosition = { epoch: 0, offset: 0 },
    private readonly bucketing?: Bucketing,
  ) {
    if (!(Number.isInteger(size) && size > 0)) throw new TrainingError('NO_DATA', `a sampler over ${size} items`);
    if (!(Number.isInteger(position.epoch) && position.epoch >= 0))
      throw new TrainingError('INVALID_CHECKPOINT', `data position epoch ${position.epoch}`);
    if (!(Number.isInteger(position.offset) && position.offset >= 0 && position.offset < size))
      throw new TrainingError(
        'INVALID_CHECKPOINT',
        `data position offset ${position.offset} outside an epoch of ${size} items`,
      );
    this.epoch = position.epoch;
    this.offset = position.offset;
    this.order = this.epochOrder(this.epoch);
  }

  /** The position the next call to `next` starts from (what a checkpoint stores). */
  get position(): DataPosition {
    return { epoch: this.epoch, offset: this.offset };
  }

  /** The next `n` indices. */
  next(n: number): number[] {
    const out: number[] = [];
    while (out.length < n) {
      out.push(this.order[this.offset++]);
      if (this.offset === this.size) {
        this.epoch++;
        this.offset = 0;
        this.order = this.epochOrder(this.epoch);
      }
    }
    return out;
  }

  private epochOrder(epoch: number): number[] {
    const rng = new Rng(streamSeed(this.seed, epoch));
    const order = permutation(this.size, rng);
    if (!this.bucketing) return order;
    const { batchSize, lengths, window } = this.bucketing;
    // Items before `phase` complete the batch that the previous epoch's last items started.
    const phase = (batchSize - ((epoch * this.size) % batchSize)) % batchSize;
    const out = order.slice(0, Math.min(phase, this.size));
    const span = batchSize * window;
    for (let from = out.length; from < this.size; from += span) {
      const sorted = order.slice(from, from + span).sort((a, b) => lengths[a] - lengths[b] || a - b);
      const batches: number[][] = [];
      for (let i = 0; i < sorted.length; i += batchSize) batches.push(sorted.slice(i, i + batchSize));
      // A partial last batch continues into the next epoch, so it stays last.
      const partial = batches.at(-1)!.length < batchSize ? batches.pop()! : null;
      for (const i of permutation(batches.length, rng)) out.push(...batches[i]);
      if (partial) out.push(...partial);
    }
    return out;
  }
}
