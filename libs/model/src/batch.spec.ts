import { describe, expect, it } from 'vitest';
import { TokenBatchFileSchema, toTrainBatch } from './batch';

describe('toTrainBatch', () => {
  it('predicts the next token with mean-NLL weights when only ids are given', () => {
    const { batch, tokenWeights } = toTrainBatch({
      ids: [
        [5, 6, 7],
        [1, 2, 3],
      ],
    });
    expect(batch).toMatchObject({ batch: 2, length: 3, ids: [5, 6, 7, 1, 2, 3], targets: [6, 7, 0, 2, 3, 0] });
    expect(Array.from(tokenWeights)).toEqual([-0.25, -0.25, 0, -0.25, -0.25, 0].map((v) => Math.fround(v)));
  });

  it('keeps given targets and weights, and names a ragged field', () => {
    const { tokenWeights, batch } = toTrainBatch({ ids: [[1, 2]], targets: [[3, 4]], weights: [[0.5, -1]] });
    expect(batch.targets).toEqual([3, 4]);
    expect(Array.from(tokenWeights)).toEqual([0.5, -1]);
    expect(() => toTrainBatch({ ids: [[1, 2], [3]] })).toThrow(/'ids' row 1/);
    expect(() => toTrainBatch({ ids: [[1, 2]], weights: [] })).toThrow(/'weights' has 0 rows/);
    expect(TokenBatchFileSchema.safeParse({ ids: [[1]], extra: 1 }).success).toBe(false);
  });
});
