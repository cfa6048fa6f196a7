import { colourAnswer } from '../answers';
import { COLOURS, DECOY_PARTS, NIAH_OBJECTS, ROOMS, forSplit } from '../vocab';
import { type Insert, type TaskTypeBuilder, capitalise, plural, pushDistractors } from './types';

/**
 * niah: one needle fact, the colour of an object. "What colour is the mirror?"
 * A first-mention search (first sentence naming the object, first colour in it) is fooled by near-miss and decoy
 * sentences placed before the needle; an exact-phrase search ("the mirror is …") misses paraphrased needles.
 */

const PARAPHRASES: readonly ((object: string, colour: string) => string)[] = [
  (o, c) => `The colour of the ${o} is ${c}.`,
  (o, c) => `${capitalise(c)} is the colour of the ${o}.`,
  (o, c) => `Someone has painted the ${o} ${c}.`,
  (o, c) => `Look closely and you will see that the ${o} is ${c}.`,
];

/** The same object with a colour it does not have now. */
const NEAR_MISSES: readonly ((object: string, colour: string) => string)[] = [
  (o, c) => `The ${o} used to be ${c}.`,
  (o, c) => `Years ago the ${o} was ${c}.`,
  (o, c) => `The ${o} is not ${c}.`,
  (o, c) => `The ${o} was ${c} before it was repainted.`,
  (o, c) => `Some say the ${o} will soon be ${c}.`,
];

/** A different object whose name contains the key. */
const DECOYS: readonly ((object: string, colour: string, part: string, room: string) => string)[] = [
  (o, c, _p, room) => `The ${plural(o)} in the ${room} are ${c}.`,
  (o, c, part) => `The ${o} ${part} is ${c}.`,
  (o, c, part) => `The ${o}'s ${part} is ${c}.`,
];

export const niahBuilder: TaskTypeBuilder = {
  type: 'niah',
  defaultRates: { near_miss: 0.5, paraphrase: 0.3, decoy_entity: 0.4 },
  build(rng, split, rates) {
    const object = rng.pick(forSplit(NIAH_OBJECTS, split));
    const colour = rng.pick(COLOURS);
    const variants: string[] = [];
    const inserts: Insert[] = [];

    const nearMiss = rng.chance(rates.near_miss);
    const paraphrase = rng.chance(rates.paraphrase);
    const decoy = rng.chance(rates.decoy_entity);

    const needle = paraphrase ? rng.pick(PARAPHRASES)(object, colour) : `The ${object} is ${colour}.`;
    inserts.push({ text: needle, needle: true });
    if (nearMiss) {
      variants.push('near_miss');
      pushDistractors(inserts, rng, rng.int(1, 2), (r) => r.pick(NEAR_MISSES)(object, r.pickOther(COLOURS, colour)));
    }
    if (paraphrase) variants.push('paraphrase');
    if (decoy) {
      variants.push('decoy_entity');
      pushDistractors(inserts, rng, rng.int(1, 2), (r) =>
        r.pick(DECOYS)(object, r.pickOther(COLOURS, colour), r.pick(DECOY_PARTS), r.pick(ROOMS)),
      );
    }
    return { question: `What colour is the ${object}?`, ...colourAnswer(colour), inserts, variants };
  },
};
