import { priceAnswer, withThousands } from '../answers';
import { DECOY_PARTS, PRICED_ITEMS, forSplit } from '../vocab';
import { type Insert, type TaskTypeBuilder, capitalise, plural, withArticle } from './types';

/**
 * multi_needle: aggregate several facts. "What is the total price, in dollars, of the lamp, the drill and the globe?"
 * Every item's price is stated once; a naive search must get every item right, so one early distractor for any
 * item spoils the sum.
 */

const usd = (value: number): string => `$${withThousands(value)}`;

const PARAPHRASES: readonly ((item: string, price: number) => string)[] = [
  (i, p) => `${withArticle(i, true)} sells for ${withThousands(p)} dollars.`,
  (i, p) => `For ${usd(p)} you can buy the ${i}.`,
  (i, p) => `The price of the ${i} is ${usd(p)}.`,
];

const NEAR_MISSES: readonly ((item: string, price: number) => string)[] = [
  (i, p) => `The ${i} used to cost ${usd(p)}.`,
  (i, p) => `Last year the ${i} cost ${usd(p)}.`,
  (i, p) => `The ${i} will cost ${usd(p)} after the sale ends.`,
  (i, p) => `Nobody would pay ${usd(p)} for the ${i}.`,
];

const DECOYS: readonly ((item: string, price: number, part: string) => string)[] = [
  (i, p) => `The ${plural(i)} cost ${usd(p)} for a set of three.`,
  (i, p, part) => `The ${i} ${part} costs ${usd(p)}.`,
  (i, p) => `${capitalise(withArticle(`second-hand ${i}`))} sells for ${withThousands(p)} dollars.`,
];

function itemList(items: readonly string[]): string {
  const named = items.map((i) => `the ${i}`);
  return `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}

/** A price in [5, 1500] different from `avoid`. */
function otherPrice(rng: { int(lo: number, hi: number): number }, avoid: number): number {
  for (;;) {
    const price = rng.int(5, 1500);
    if (price !== avoid) return price;
  }
}

export const multiNeedleBuilder: TaskTypeBuilder = {
  type: 'multi_needle',
  defaultRates: { near_miss: 0.3, paraphrase: 0.3, decoy_entity: 0.3 },
  build(rng, split, rates) {
    const count = rng.pick([2, 3, 3, 4]);
    const items = rng.sample(forSplit(PRICED_ITEMS, split), count);
    const prices = items.map(() => rng.int(5, 1500));
    const variants: string[] = [];
    const inserts: Insert[] = [];

    const nearMiss = rng.chance(rates.near_miss);
    const paraphrase = rng.chance(rates.paraphrase);
    const decoy = rng.chance(rates.decoy_entity);

    // With the paraphrase variant each item's needle is paraphrased with probability 1/2, and at least one is.
    const forced = rng.int(0, count - 1);
    items.forEach((item, k) => {
      const paraphrased = paraphrase && (k === forced || rng.chance(0.5));
      const text = paraphrased ? rng.pick(PARAPHRASES)(item, prices[k]) : `The ${item} costs ${usd(prices[k])}.`;
      inserts.push({ text, needle: true });
    });
    if (nearMiss) {
      variants.push('near_miss');
      for (let n = rng.int(1, count); n > 0; n--) {
        const k = rng.int(0, count - 1);
        inserts.push({ text: rng.pick(NEAR_MISSES)(items[k], otherPrice(rng, prices[k])), needle: false });
      }
    }
    if (paraphrase) variants.push('paraphrase');
    if (decoy) {
      variants.push('decoy_entity');
      for (let n = rng.int(1, count); n > 0; n--) {
        const k = rng.int(0, count - 1);
        const text = rng.pick(DECOYS)(items[k], otherPrice(rng, prices[k]), rng.pick(DECOY_PARTS));
        inserts.push({ text, needle: false });
      }
    }
    const total = prices.reduce((a, b) => a + b, 0);
    return {
      question: `What is the total price, in dollars, of ${itemList(items)}?`,
      ...priceAnswer(total),
      inserts,
      variants,
    };
  },
};
