import type { SubQuestion } from '@fathom/contracts';
import { priceAnswer } from '../answers';
import { MULTI_NEEDLE_QUESTIONS, SUB_QUESTIONS, phrasingsOf } from '../frames';
import { objectDecoys, objectKey } from '../lexicon';
import { theList, withThousands } from '../text';
import { DECOY_PARTS } from '../vocab';
import { DraftWriter, type TaskTypeBuilder, meta } from './types';

/**
 * multi_needle: aggregate several facts ("How much do the brass lantern, the ink-chest and the Dravel kettle cost
 * altogether, in dollars?"). Every item's price is stated once; distractors give an item a price it does not have
 * now, or price a near-duplicate item, so one misread item spoils the sum.
 */
export const MULTI_NEEDLE_DISTRACTORS = ['tense', 'negation', 'hypothetical', 'reported', 'correction'] as const;

/** A price in [5, 1500] not in `avoid`. */
function price(rng: { int(lo: number, hi: number): number }, avoid: readonly number[]): number {
  for (;;) {
    const p = rng.int(5, 1500);
    if (!avoid.includes(p)) return p;
  }
}

export const multiNeedleBuilder: TaskTypeBuilder = {
  type: 'multi_needle',
  defaultRates: { tense: 0.4, negation: 0.3, hypothetical: 0.3, reported: 0.3, correction: 0.3, decoy_entity: 0.4 },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'multi_needle', family, invent);
    const items: string[] = [];
    for (let n = rng.pick([2, 3, 3, 4]); n > 0; n--) items.push(objectKey(rng, split, items));
    const prices = items.map(() => price(rng, []));
    const pricePhrasings = phrasingsOf(SUB_QUESTIONS.price, family);
    const subquestions: SubQuestion[] = items.map((item, k) => ({
      question: rng.pick(pricePhrasings).render(item),
      evidence: [w.write('needle', { key: item, value: withThousands(prices[k]) }, true)],
      // As the needle writes it, so a reader copies it; answers are scored with numbers read as numbers.
      answer: withThousands(prices[k]),
    }));
    w.maybe(MULTI_NEEDLE_DISTRACTORS, rates, (kind) => {
      const k = rng.int(0, items.length - 1);
      w.write(kind, { key: items[k], value: withThousands(price(rng, [prices[k]])) }, false);
    });
    if (rng.chance(rates.decoy_entity)) {
      w.tag('decoy_entity');
      for (let n = rng.int(1, items.length); n > 0; n--) {
        const k = rng.int(0, items.length - 1);
        const decoy = rng.pick(objectDecoys(rng, split, items[k], DECOY_PARTS).filter((d) => !items.includes(d)));
        w.write('needle', { key: decoy, value: withThousands(price(rng, [prices[k]])) }, false);
      }
    }
    const phrasing = rng.pick(phrasingsOf(MULTI_NEEDLE_QUESTIONS, family));
    const total = prices.reduce((a, b) => a + b, 0);
    return {
      question: phrasing.render(theList(items)),
      ...priceAnswer(total),
      inserts: w.inserts,
      variants: w.variants(this.defaultRates),
      meta: meta(items[0], items, family, phrasing.id, w.frames(), subquestions),
    };
  },
};
