import { NIAH_QUESTIONS } from '../frames';
import { code, objectDecoys, objectKey } from '../lexicon';
import { DECOY_PARTS } from '../vocab';
import { DraftWriter, type TaskTypeBuilder, distinct, singleFactDraft } from './types';

/**
 * niah: one needle, the code on an object ("What code does the brass lantern carry?" → "K7-QX2"). Distractors give
 * the same object another code in a sentence that does not state its code now (tense, negation, hypothetical,
 * reported claim, correction), or give a near-duplicate object ("the lantern", "the brass lantern stand") a code.
 */
export const NIAH_DISTRACTORS = ['tense', 'negation', 'hypothetical', 'reported', 'correction'] as const;

export const niahBuilder: TaskTypeBuilder = {
  type: 'niah',
  defaultRates: { tense: 0.4, negation: 0.4, hypothetical: 0.4, reported: 0.4, correction: 0.4, decoy_entity: 0.5 },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'niah', family, invent);
    const key = objectKey(rng, split);
    const value = code(rng, split);
    const wrong = distinct((avoid) => code(rng, split, avoid), [value]);
    const needle = w.write('needle', { key, value }, true);
    w.maybe(NIAH_DISTRACTORS, rates, (kind) => w.write(kind, { key, value: wrong() }, false));
    if (rng.chance(rates.decoy_entity)) {
      w.tag('decoy_entity');
      const decoys = objectDecoys(rng, split, key, DECOY_PARTS);
      for (const decoy of rng.sample(decoys, rng.int(1, 2))) w.write('needle', { key: decoy, value: wrong() }, false);
    }
    return singleFactDraft(w, NIAH_QUESTIONS, { key, value, needle }, this.defaultRates);
  },
};
