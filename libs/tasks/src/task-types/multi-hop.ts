import { plainAnswer } from '../answers';
import { MULTI_HOP_QUESTIONS, SUB_QUESTIONS, phrasingsOf } from '../frames';
import { objectDecoys, objectKey, person, place } from '../lexicon';
import { DECOY_PARTS } from '../vocab';
import { DraftWriter, type TaskTypeBuilder, meta } from './types';

/**
 * multi_hop: two facts linked through a person ("Where does the owner of the brass lantern live?"): who owns the
 * object, then where that person lives. Distractors about ownership name other people (who live elsewhere, so a
 * wrong first hop gives a wrong city); distractors about the owner's home name other cities; a near-duplicate
 * object belongs to someone else; bystanders' homes are always stated.
 */
export const MULTI_HOP_DISTRACTORS = [
  'tense',
  'negation',
  'hypothetical',
  'reported',
  'home_tense',
  'home_reported',
] as const;

export const multiHopBuilder: TaskTypeBuilder = {
  type: 'multi_hop',
  defaultRates: {
    tense: 0.4,
    negation: 0.4,
    hypothetical: 0.4,
    reported: 0.4,
    home_tense: 0.4,
    home_reported: 0.4,
    decoy_entity: 0.5,
  },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'multi_hop', family, invent);
    const key = objectKey(rng, split);
    const owner = person(rng, split, [key]);
    const city = place(rng, split, [key, owner]);
    const people = [owner];
    const cities = [city];
    const newPerson = () => {
      const p = person(rng, split, [key, ...people, ...cities]);
      people.push(p);
      return p;
    };
    const newCity = () => {
      const c = place(rng, split, [key, ...people, ...cities]);
      cities.push(c);
      return c;
    };
    const ownership = w.write('owner', { key, value: owner }, true);
    const home = w.write('home', { key: owner, value: city }, true);
    const bystanders: string[] = [];
    for (let n = rng.int(1, 2); n > 0; n--) bystanders.push(newPerson());
    w.maybe(MULTI_HOP_DISTRACTORS, rates, (kind) => {
      if (kind.startsWith('home_')) w.write(kind, { key: owner, value: newCity() }, false);
      else {
        const claimant = newPerson();
        bystanders.push(claimant);
        w.write(kind, { key, value: claimant }, false);
      }
    });
    if (rng.chance(rates.decoy_entity)) {
      w.tag('decoy_entity');
      const decoy = rng.pick(objectDecoys(rng, split, key, DECOY_PARTS));
      const decoyOwner = newPerson();
      bystanders.push(decoyOwner);
      w.write('owner', { key: decoy, value: decoyOwner }, false);
    }
    for (const bystander of bystanders) w.write('home', { key: bystander, value: newCity() }, false);

    const phrasing = rng.pick(phrasingsOf(MULTI_HOP_QUESTIONS, family));
    const subquestions = [
      {
        question: rng.pick(phrasingsOf(SUB_QUESTIONS.owner, family)).render(key),
        evidence: [ownership],
        answer: owner,
      },
      { question: rng.pick(phrasingsOf(SUB_QUESTIONS.home, family)).render(owner), evidence: [home], answer: city },
    ];
    return {
      question: phrasing.render(key),
      ...plainAnswer(city),
      inserts: w.inserts,
      variants: w.variants(this.defaultRates),
      meta: meta(key, [key, owner], family, phrasing.id, w.frames(), subquestions),
    };
  },
};
