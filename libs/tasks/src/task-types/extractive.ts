import { EXTRACTIVE_QUESTIONS } from '../frames';
import { agreementKey, place } from '../lexicon';
import { DraftWriter, type TaskTypeBuilder, distinct, singleFactDraft } from './types';

/**
 * extractive: a fact stated once among near misses ("Where was the Dravel Accord of 1887 signed?" → "Brenmoor").
 * Distractors name the same agreement with another city in a sentence that is not its signing (another event,
 * negation, hypothetical, reported claim, correction), or name an agreement with a neighbouring year or another kind.
 */
export const EXTRACTIVE_DISTRACTORS = ['near_miss', 'negation', 'hypothetical', 'reported', 'correction'] as const;

export const extractiveBuilder: TaskTypeBuilder = {
  type: 'extractive',
  defaultRates: {
    near_miss: 0.5,
    negation: 0.4,
    hypothetical: 0.4,
    reported: 0.4,
    correction: 0.4,
    decoy_entity: 0.5,
  },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'extractive', family, invent);
    const { key, decoys } = agreementKey(rng, split);
    const value = place(rng, split, [key]);
    const wrong = distinct((avoid) => place(rng, split, avoid), [key, value]);
    const needle = w.write('needle', { key, value }, true);
    w.maybe(EXTRACTIVE_DISTRACTORS, rates, (kind) => w.write(kind, { key, value: wrong() }, false));
    if (decoys.length > 0 && rng.chance(rates.decoy_entity)) {
      w.tag('decoy_entity');
      for (const decoy of rng.sample(decoys, rng.int(1, decoys.length)))
        w.write('needle', { key: decoy, value: wrong() }, false);
    }
    return singleFactDraft(w, EXTRACTIVE_QUESTIONS, { key, value, needle }, this.defaultRates);
  },
};
