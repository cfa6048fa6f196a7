import { cityAnswer } from '../answers';
import { AGREEMENT_KINDS, AGREEMENT_STEMS, CITIES, forSplit } from '../vocab';
import { type Insert, type TaskTypeBuilder, pushDistractors } from './types';

/**
 * extractive: a fact stated once among near misses. "In which city was the 1987 Harbour Accord signed?"
 * Near misses name the same agreement with another verb (drafted, ratified...); decoys are agreements with a
 * neighbouring year or the same stem and another kind, signed elsewhere.
 */

const PARAPHRASES: readonly ((key: string, city: string) => string)[] = [
  (k, c) => `Delegates signed the ${k} in ${c}.`,
  (k, c) => `It was in ${c} that the ${k} was signed.`,
  (k, c) => `${c} hosted the signing of the ${k}.`,
];

const NEAR_MISSES: readonly ((key: string, city: string) => string)[] = [
  (k, c) => `The ${k} was drafted in ${c}.`,
  (k, c) => `Talks on the ${k} opened in ${c}.`,
  (k, c) => `The ${k} was ratified in ${c}.`,
  (k, c) => `The ${k} was first proposed in ${c}.`,
];

export const extractiveBuilder: TaskTypeBuilder = {
  type: 'extractive',
  defaultRates: { near_miss: 0.5, paraphrase: 0.3, decoy_entity: 0.4 },
  build(rng, split, rates) {
    const stem = rng.pick(forSplit(AGREEMENT_STEMS, split));
    const kind = rng.pick(AGREEMENT_KINDS);
    const year = rng.int(1850, 2020);
    const cities = forSplit(CITIES, split);
    const city = rng.pick(cities);
    const key = `${year} ${stem} ${kind}`;
    const variants: string[] = [];
    const inserts: Insert[] = [];

    const nearMiss = rng.chance(rates.near_miss);
    const paraphrase = rng.chance(rates.paraphrase);
    const decoy = rng.chance(rates.decoy_entity);

    const needle = paraphrase ? rng.pick(PARAPHRASES)(key, city) : `The ${key} was signed in ${city}.`;
    inserts.push({ text: needle, needle: true });
    if (nearMiss) {
      variants.push('near_miss');
      pushDistractors(inserts, rng, rng.int(1, 2), (r) => r.pick(NEAR_MISSES)(key, r.pickOther(cities, city)));
    }
    if (paraphrase) variants.push('paraphrase');
    if (decoy) {
      variants.push('decoy_entity');
      pushDistractors(inserts, rng, rng.int(1, 2), (r) => {
        const similar = r.chance(0.5)
          ? `${year + (r.chance(0.5) ? 1 : -1) * r.int(1, 5)} ${stem} ${kind}`
          : `${year} ${stem} ${r.pickOther(AGREEMENT_KINDS, kind)}`;
        return `The ${similar} was signed in ${r.pickOther(cities, city)}.`;
      });
    }
    return { question: `In which city was the ${key} signed?`, ...cityAnswer(city), inserts, variants };
  },
};
