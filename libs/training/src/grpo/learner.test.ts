import { createDefaultModel, ModelGraphs } from '@fathom/model';
import { afterAll, describe, expect, it } from 'vitest';
import { packBatch } from '../tokens';
import { logprobsOfLogits } from './learner';

describe('logprobsOfLogits', () => {
  let graphs: ModelGraphs | undefined;
  afterAll(async () => graphs?.release());

  it("takes the learner's log-probs from the entropy forward's logits, equal to the log-prob graph's", async () => {
    const model = await createDefaultModel(undefined, 3);
    graphs = new ModelGraphs(model.config);
    const sequences = [
      { ids: [10, 20, 30, 40, 50, 60, 70], mask: [0, 0, 0, 1, 1, 1, 1] },
      { ids: [5, 6, 7, 8], mask: [0, 1, 1, 1] },
    ];
    const packed = packBatch(sequences, { padId: 259, padMultiple: 8, maxLength: 64 });
    const T = packed.batch.length;
    const logits = await graphs.logits(model.params, packed.batch.ids, packed.batch.batch, T);
    const entropy = { sum: 0, n: 0 };
    const logprobs = logprobsOfLogits(logits, packed, model.config.vocabSize, entropy);
    expect(logprobsOfLogits(logits, packed, model.config.vocabSize)).toEqual(logprobs);
    const expected = await graphs.logprobs(model.params, packed.batch);
    for (let p = 0; p < expected.length; p++) expect(logprobs[p]).toBeCloseTo(expected[p], 4);
    expect(entropy.n).toBe(packed.trainedTokens);
    // An untrained model is close to uniform over the 260 ids: entropy near ln 260.
    expect(entropy.sum / entropy.n).toBeGreaterThan(0.9 * Math.log(model.config.vocabSize));
    expect(entropy.sum / entropy.n).toBeLessThanOrEqual(Math.log(model.config.vocabSize) + 1e-6);
  });
});
