import { countAnswer } from '../answers';
import { COMPOUND_PREFIXES, COMPOUND_SUFFIXES, COUNTED_WORDS, forSplit } from '../vocab';
import { type Insert, type TaskTypeBuilder, capitalise, plural, withArticle } from './types';

/**
 * counting: how often a word occurs as a whole word, in any letter case.
 * Traps for a plain substring count: plurals ("apples") and longer words ("pineapple") inflate it; capitalised
 * occurrences ("Apple", "APPLE") count but a case-sensitive search misses them.
 */

/** Sentences holding one counted, lower-case occurrence. */
const OCCURRENCES: readonly ((word: string) => string)[] = [
  (w) => `Someone left the ${w} near the door.`,
  (w) => `Nobody mentioned the ${w} until later.`,
  (w) => `The note said only one word: ${w}.`,
  (w) => `They talked about the ${w} for an hour.`,
  (w) => `It was hard to forget the ${w}.`,
  (w) => `A child drew the ${w} on a slate.`,
];

/** Counted occurrences that a case-sensitive search misses. */
const CAPITALISED: readonly ((word: string) => string)[] = [
  (w) => `${capitalise(w)} was written on the first page.`,
  (w) => `The sign simply read ${w.toUpperCase()}.`,
];

const PLURALS: readonly ((word: string) => string)[] = [
  (w) => `Two ${plural(w)} were missing from the list.`,
  (w) => `A pile of ${plural(w)} waited by the door.`,
];

const COMPOUNDS: readonly ((compound: string) => string)[] = [
  (c) => `Everyone admired the ${c}.`,
  (c) => `${withArticle(c, true)} stood by the wall.`,
];

export const countingBuilder: TaskTypeBuilder = {
  type: 'counting',
  defaultRates: { plural_trap: 0.3, compound_trap: 0.3, case_trap: 0.3 },
  build(rng, split, rates) {
    const word = rng.pick(forSplit(COUNTED_WORDS, split));
    const count = rng.int(1, 12);
    const variants: string[] = [];
    const inserts: Insert[] = [];

    const pluralTrap = rng.chance(rates.plural_trap);
    const compoundTrap = rng.chance(rates.compound_trap);
    const caseTrap = rng.chance(rates.case_trap);

    const capitalised = caseTrap ? rng.int(1, Math.min(3, count)) : 0;
    for (let k = 0; k < count; k++) {
      const templates = k < capitalised ? CAPITALISED : OCCURRENCES;
      inserts.push({ text: rng.pick(templates)(word), needle: true });
    }
    if (pluralTrap) {
      variants.push('plural_trap');
      for (let n = rng.int(1, 3); n > 0; n--) inserts.push({ text: rng.pick(PLURALS)(word), needle: false });
    }
    if (compoundTrap) {
      variants.push('compound_trap');
      for (let n = rng.int(1, 3); n > 0; n--) {
        const compound = rng.chance(0.5)
          ? `${rng.pick(COMPOUND_PREFIXES)}${word}`
          : `${word}${rng.pick(COMPOUND_SUFFIXES)}`;
        inserts.push({ text: rng.pick(COMPOUNDS)(compound), needle: false });
      }
    }
    if (caseTrap) variants.push('case_trap');
    return {
      question:
        `How many times does the word "${word}" appear in the document? ` +
        'Count whole words in any letter case; plurals and longer words that contain it do not count.',
      ...countAnswer(count),
      inserts,
      variants,
    };
  },
};
