import { z } from 'zod';
import { ModelError } from './errors';
import type { TokenBatch } from './graph/model.graphs';

/**
 * A training batch as JSON (what `fathom model grads --batch` reads): equal-length rows of token ids, and
 * optionally targets and per-token weights of the same shape. Without targets, each position predicts the next
 * token (the last position gets weight 0); without weights, every predicted position weighs −1/count, so the
 * loss is the mean negative log-likelihood.
 */
export const TokenBatchFileSchema = z.strictObject({
  ids: z.array(z.array(z.number().int().nonnegative()).min(1)).min(1),
  targets: z.array(z.array(z.number().int().nonnegative())).optional(),
  weights: z.array(z.array(z.number())).optional(),
});
export type TokenBatchFile = z.infer<typeof TokenBatchFileSchema>;

/** Turns a batch file into a graph batch and its token weights; throws naming the first ragged field. */
export function toTrainBatch(file: TokenBatchFile): { batch: TokenBatch; tokenWeights: Float32Array } {
  const rows = file.ids.length;
  const length = file.ids[0].length;
  const check = (name: string, arr: number[][] | undefined) => {
    if (!arr) return;
    if (arr.length !== rows) {
      throw new ModelError('INVALID_ARGUMENT', `batch field '${name}' has ${arr.length} rows, 'ids' has ${rows}`);
    }
    arr.forEach((row, i) => {
      if (row.length !== length) {
        throw new ModelError(
          'INVALID_ARGUMENT',
          `batch field '${name}' row ${i} has ${row.length} entries, expected ${length}`,
        );
      }
    });
  };
  check('ids', file.ids);
  check('targets', file.targets);
  check('weights', file.weights);
  const targets = file.targets ?? file.ids.map((row) => [...row.slice(1), 0]);
  let weights = file.weights;
  if (!weights) {
    const count = file.targets ? rows * length : rows * (length - 1);
    if (count === 0)
      throw new ModelError('INVALID_ARGUMENT', 'batch has no predicted positions (rows of one token need targets)');
    weights = file.ids.map((row) => row.map((_, t) => (file.targets || t < length - 1 ? -1 / count : 0)));
  }
  return {
    batch: { batch: rows, length, ids: file.ids.flat(), targets: targets.flat() },
    tokenWeights: Float32Array.from(weights.flat()),
  };
}
