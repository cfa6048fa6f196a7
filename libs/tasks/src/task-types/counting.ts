import { countAnswer } from '../answers';
import { COUNTING_QUESTIONS, phrasingsOf } from '../frames';
import { word } from '../lexicon';
import { COMPOUND_PREFIXES, COMPOUND_SUFFIXES } from '../vocab';
import { DraftWriter, type TaskTypeBuilder, meta } from './types';

/**
 * counting: how often a generated word occurs as a whole word, in any letter case. Traps for a plain substring
 * count: plurals and longer words that contain it inflate it; capitalised occurrences count but a case-sensitive
 * search misses them. The structured truth has no sub-questions: the answer is a count over the whole document.
 */
export const countingBuilder: TaskTypeBuilder = {
  type: 'counting',
  defaultRates: { plural_trap: 0.3, compound_trap: 0.3, case_trap: 0.3 },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'counting', family, invent);
    const key = word(rng, split);
    const count = rng.int(1, 12);
    const pluralTrap = rng.chance(rates.plural_trap);
    const compoundTrap = rng.chance(rates.compound_trap);
    const caseTrap = rng.chance(rates.case_trap);

    const capitalised = caseTrap ? rng.int(1, Math.min(3, count)) : 0;
    for (let k = 0; k < count; k++) w.write(k < capitalised ? 'capitalised' : 'needle', { key }, true);
    if (caseTrap) w.tag('case_trap');
    if (pluralTrap) {
      w.tag('plural_trap');
      for (let n = rng.int(1, 3); n > 0; n--) w.write('plural', { key }, false);
    }
    if (compoundTrap) {
      w.tag('compound_trap');
      for (let n = rng.int(1, 3); n > 0; n--) {
        const compound = rng.chance(0.5)
          ? `${rng.pick(COMPOUND_PREFIXES)}${key}`
          : `${key}${rng.pick(COMPOUND_SUFFIXES)}`;
        w.write('compound', { key: compound }, false);
      }
    }
    const phrasing = rng.pick(phrasingsOf(COUNTING_QUESTIONS, family));
    return {
      question: phrasing.render(key),
      ...countAnswer(count),
      inserts: w.inserts,
      variants: w.variants(this.defaultRates),
      meta: meta(key, [key], family, phrasing.id, w.frames(), []),
    };
  },
};
