import type { Rng } from '@fathom/contracts';
import { FILLER } from './vocab';
import { capitalise } from './text';

/**
 * Filler prose: grammatical, varied sentences about people, errands and documents, built from the word lists in
 * vocab.ts by ten sentence shapes. Filler never mentions a key, an answer word or a digit, so the only sentences
 * that carry information about a question are the needles and distractors the task builder inserts.
 */

const { names, professions, adjectives, verbs, things, places, times, adverbs, states, connectors, intransitive } =
  FILLER;

function person(rng: Rng): string {
  const roll = rng.nextU32() % 3;
  if (roll === 0) return rng.pick(names);
  if (roll === 1) return `the ${rng.pick(professions)}`;
  return `the ${rng.pick(adjectives)} ${rng.pick(professions)}`;
}

function thing(rng: Rng): string {
  return `the ${rng.pick(things)}`;
}

const SHAPES: readonly ((rng: Rng) => string)[] = [
  (r) => `${capitalise(person(r))} ${r.pick(verbs)} ${thing(r)} ${r.pick(places)}.`,
  (r) => `${capitalise(r.pick(times))}, ${person(r)} ${r.pick(verbs)} ${thing(r)}.`,
  (r) => `${capitalise(person(r))} ${r.pick(adverbs)} ${r.pick(verbs)} ${thing(r)} ${r.pick(times)}.`,
  (r) => `According to ${person(r)}, ${person(r)} had ${r.pick(verbs)} ${thing(r)} ${r.pick(places)}.`,
  (r) => `It was ${r.pick(times)} when the ${r.pick(adjectives)} ${r.pick(professions)} ${r.pick(verbs)} ${thing(r)}.`,
  (r) => `${capitalise(person(r))} said that ${thing(r)} was ${r.pick(states)}.`,
  (r) => `Nobody ${r.pick(places)} remembered who had ${r.pick(verbs)} ${thing(r)}.`,
  (r) => `${capitalise(person(r))} ${r.pick(intransitive)} ${r.pick(places)} ${r.pick(times)}.`,
  (r) =>
    `${capitalise(person(r))} ${r.pick(verbs)} ${thing(r)}, ${r.pick(connectors)} ${person(r)} ${r.pick(verbs)} ${thing(r)}.`,
  (r) => `${capitalise(thing(r))} was ${r.pick(states)}, or so ${person(r)} claimed ${r.pick(times)}.`,
];

/** One filler sentence, ending in a full stop, with no surrounding whitespace. */
export function fillerSentence(rng: Rng): string {
  return rng.pick(SHAPES)(rng);
}
