import { plainAnswer } from '../answers';
import { TRACKING_QUESTIONS, phrasingsOf } from '../frames';
import { objectDecoys, objectKey, person, place } from '../lexicon';
import { DECOY_PARTS } from '../vocab';
import { DraftWriter, type TaskTypeBuilder, meta } from './types';

/**
 * tracking: events about one object scattered through the document, in order — where it starts, moves and
 * hand-overs, and events that do not move it (undone, hypothetical, negated, reported moves) — among other objects'
 * moves. The answer is the object's place after its last real move. Every sentence about the object is a needle
 * and evidence of the one sub-question (the task question).
 */
export const TRACKING_NON_MOVES = ['undone', 'hypothetical', 'negation', 'reported'] as const;

export const trackingBuilder: TaskTypeBuilder = {
  type: 'tracking',
  defaultRates: { undone: 0.5, hypothetical: 0.5, negation: 0.4, reported: 0.4, decoy_entity: 0.5 },
  build(rng, { split, family, rates, invent }) {
    const w = new DraftWriter(rng, 'tracking', family, invent);
    const key = objectKey(rng, split);
    const others: string[] = [];
    for (let n = rng.int(1, 3); n > 0; n--) others.push(objectKey(rng, split, [key, ...others]));
    const places: string[] = [];
    for (let n = 7; n > 0; n--) places.push(place(rng, split, [key, ...others, ...places]));
    const hands: string[] = [];
    for (let n = 3; n > 0; n--) hands.push(person(rng, split, hands));

    // The object's story: a start, 2–5 moves to a new place each, and the tagged non-moves at random points.
    type Step = { kind: string; place: string };
    const steps: Step[] = [];
    let at = rng.pick(places);
    steps.push({ kind: 'start', place: at });
    for (let n = rng.int(2, 5); n > 0; n--) {
      at = rng.pickOther(places, at);
      steps.push({ kind: 'move', place: at });
    }
    const final = at;
    w.maybe(TRACKING_NON_MOVES, rates, (kind) => steps.splice(rng.int(1, steps.length), 0, { kind, place: '' }));
    // A non-move names a place the object is not at, and never its final place, so "last place mentioned" fails.
    let current = '';
    const evidence = steps.map((step, sequence) => {
      if (step.kind === 'start' || step.kind === 'move') current = step.place;
      const shown = step.place || rng.pick(places.filter((p) => p !== current && p !== final));
      return w.write(step.kind, { key, value: shown, other: rng.pick(hands) }, true, sequence);
    });

    for (const other of others)
      for (let n = rng.int(1, 3); n > 0; n--)
        w.write('move', { key: other, value: rng.pick(places), other: rng.pick(hands) }, false);
    if (rng.chance(rates.decoy_entity)) {
      w.tag('decoy_entity');
      const decoys = objectDecoys(rng, split, key, DECOY_PARTS);
      for (const decoy of rng.sample(decoys, rng.int(1, 2)))
        w.write('move', { key: decoy, value: rng.pickOther(places, final), other: rng.pick(hands) }, false);
    }
    const phrasing = rng.pick(phrasingsOf(TRACKING_QUESTIONS, family));
    const question = phrasing.render(key);
    return {
      question,
      ...plainAnswer(final),
      inserts: w.inserts,
      variants: w.variants(this.defaultRates),
      meta: meta(key, [key], family, phrasing.id, w.frames(), [{ question, evidence, answer: final }]),
    };
  },
};
