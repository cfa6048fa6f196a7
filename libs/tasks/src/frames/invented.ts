import type { Rng, TaskType } from '@fathom/contracts';
import { FILLER } from '../vocab';
import type { Slots } from './types';
import { capitalise } from '../text';

/**
 * Invented frames: a sentence that ties a key to a value with words that say nothing about how — random filler
 * words between them, the value before or after the key, an optional time or place around. A reader trained on
 * them cannot lean on a frame's wording (the generator's train frames are few: a needle sentence of an unseen
 * wording is where the reader fails); what is left to read is which entity the sentence is about and which span is
 * the value. They are built only from filler vocabulary, never from a frame of either family, so they teach nothing
 * about the heldout wording.
 *
 * Only the relations that tie one key to one value are invented (`INVENTED_KINDS`); distractors whose meaning
 * matters (negation, tense, hypotheticals, reported claims, corrections) keep their written frames.
 */
export const INVENTED_KINDS: Readonly<Partial<Record<TaskType, readonly string[]>>> = {
  niah: ['needle'],
  extractive: ['needle'],
  multi_needle: ['needle'],
  multi_hop: ['owner', 'home'],
};

/** Whether `kind` sentences of `type` can be written with an invented frame. */
export function inventable(type: TaskType, kind: string): boolean {
  return INVENTED_KINDS[type]?.includes(kind) ?? false;
}

const { verbs, adverbs, intransitive, places, times, names, professions } = FILLER;
const LINK_WORDS: readonly string[] = [...verbs, ...adverbs, ...intransitive, 'with', 'as', 'for', 'by', 'to', 'at'];

/** How the key reads in a sentence: people by name, things with "the" (as every written frame has them). */
function keyPhrase(type: TaskType, kind: string, key: string): string {
  return type === 'multi_hop' && kind === 'home' ? key : `the ${key}`;
}

/** How the value reads: prices with their dollar sign (as the written frames mostly have them), the rest verbatim. */
function valuePhrase(type: TaskType, value: string): string {
  return type === 'multi_needle' ? `$${value}` : value;
}

/**
 * One sentence tying `slots.key` to `slots.value` with an invented frame of `type`'s `kind` (which must be
 * `inventable`). Consumes `rng`; the same state gives the same sentence.
 */
export function inventedSentence(rng: Rng, type: TaskType, kind: string, slots: Pick<Slots, 'key' | 'value'>): string {
  if (!inventable(type, kind)) throw new Error(`no invented frame for ${type} sentences of kind "${kind}"`);
  const key = keyPhrase(type, kind, slots.key);
  const value = valuePhrase(type, slots.value);
  const link = Array.from({ length: rng.int(1, 3) }, () => rng.pick(LINK_WORDS)).join(' ');
  const core = rng.chance(0.6) ? `${key} ${link} ${value}` : `${value} ${link} ${key}`;
  const around = rng.float();
  if (around < 0.25) return `${capitalise(rng.pick(times))}, ${core}.`;
  if (around < 0.4) {
    const who = rng.chance(0.5) ? rng.pick(names) : `the ${rng.pick(professions)}`;
    return `According to ${who}, ${core}.`;
  }
  if (around < 0.7) return `${capitalise(core)} ${rng.pick(rng.chance(0.5) ? places : times)}.`;
  return `${capitalise(core)}.`;
}

const ASKING = ['What', 'Which', 'Who', 'Where', 'How', 'Tell me', 'Say'] as const;

/**
 * A question about `key` whose words say nothing of what is asked: an opening (What, Where, Tell me, …) and one or
 * two filler words before the key, as "Where quietly recorded the velvet spade?". Paired with a sentence that ties the
 * key to one value, only the key says which value is meant; a reader trained on them cannot lean on a question
 * phrasing's wording either. For the relations of `INVENTED_KINDS` only.
 */
export function inventedQuestion(rng: Rng, type: TaskType, kind: string, key: string): string {
  if (!inventable(type, kind)) throw new Error(`no invented question for ${type} facts of kind "${kind}"`);
  const words = Array.from({ length: rng.int(1, 2) }, () => rng.pick(LINK_WORDS)).join(' ');
  return `${rng.pick(ASKING)} ${words} ${keyPhrase(type, kind, key)}?`;
}

/**
 * Distractors whose meaning cue can be invented: a sentence built like an invented frame (the key, filler words, the
 * value) with one word or phrase that takes the statement back — a negation, a hypothetical, a correction, a past
 * state. The written frames give a reader one wording of each meaning per family, so it learns to refuse that
 * wording rather than the meaning; here the cue stands in varied places around varied filler. Reported claims keep
 * their written frames: an invented needle may open with "According to …".
 */
export const INVENTED_DISTRACTOR_KINDS: Readonly<Partial<Record<TaskType, readonly string[]>>> = {
  niah: ['tense', 'negation', 'hypothetical', 'correction'],
  extractive: ['negation', 'hypothetical', 'correction'],
  multi_needle: ['tense', 'negation', 'hypothetical', 'correction'],
};

/** Whether `kind` distractors of `type` can be written with an invented frame and meaning cue. */
export function distractorInventable(type: TaskType, kind: string): boolean {
  return INVENTED_DISTRACTOR_KINDS[type]?.includes(kind) ?? false;
}

/** The words of an invented distractor: key, value, filler links, a name and a verb for the cue to use. */
interface CueParts {
  key: string;
  value: string;
  link: string;
  name: string;
  verb: string;
}

/**
 * Ways to take a key-to-value statement back, by distractor kind; each is a sentence without its capital and full stop.
 */
const CUES: Readonly<Record<string, readonly ((p: CueParts) => string)[]>> = {
  negation: [
    (p) => `${p.key} never ${p.link} ${p.value}`,
    (p) => `${p.key} did not ${p.link} ${p.value}`,
    (p) => `${p.value} was not ${p.link} ${p.key}`,
    (p) => `not once did ${p.key} ${p.link} ${p.value}`,
    (p) => `${p.name} denied that ${p.key} ${p.link} ${p.value}`,
    (p) => `it is false that ${p.key} ${p.link} ${p.value}`,
  ],
  hypothetical: [
    (p) => `${p.key} would ${p.link} ${p.value}`,
    (p) => `${p.key} might ${p.link} ${p.value}`,
    (p) => `${p.value} could have ${p.link} ${p.key}`,
    (p) => `if ${p.name} had ${p.verb}, ${p.key} would ${p.link} ${p.value}`,
    (p) => `perhaps one day ${p.key} will ${p.link} ${p.value}`,
    (p) => `${p.name} imagined ${p.key} ${p.link} ${p.value}`,
  ],
  correction: [
    (p) => `${p.key} ${p.link} ${p.value}, ${p.name} wrote in error`,
    (p) => `${p.name} wrongly believed ${p.key} ${p.link} ${p.value}`,
    (p) => `${p.key} ${p.link} ${p.value}, which proved false`,
    (p) => `${p.value} ${p.link} ${p.key} was a mistaken entry`,
    (p) => `${p.name} mistakenly put ${p.value} ${p.link} ${p.key}`,
    (p) => `${p.key} ${p.link} ${p.value} was wrong, as ${p.name} showed`,
  ],
  tense: [
    (p) => `${p.key} formerly ${p.link} ${p.value}`,
    (p) => `${p.key} used to ${p.link} ${p.value}`,
    (p) => `${p.key} no longer ${p.link} ${p.value}`,
    (p) => `at one time ${p.value} ${p.link} ${p.key}`,
    (p) => `${p.value} previously ${p.link} ${p.key}`,
    (p) => `${p.key} ${p.link} ${p.value} until ${p.name} ${p.verb}`,
  ],
};

/**
 * A distractor of `type`'s `kind` (which must be `distractorInventable`) about `slots.key` with the wrong value
 * `slots.value`: filler links between them and a meaning cue that takes the statement back (`CUES`), with an
 * optional time or place around. Consumes `rng`; the same state gives the same sentence.
 */
export function inventedDistractor(
  rng: Rng,
  type: TaskType,
  kind: string,
  slots: Pick<Slots, 'key' | 'value'>,
): string {
  if (!distractorInventable(type, kind))
    throw new Error(`no invented distractor for ${type} sentences of kind "${kind}"`);
  const parts: CueParts = {
    key: keyPhrase(type, 'needle', slots.key),
    value: valuePhrase(type, slots.value),
    link: Array.from({ length: rng.int(1, 2) }, () => rng.pick(LINK_WORDS)).join(' '),
    name: rng.chance(0.5) ? rng.pick(names) : `the ${rng.pick(professions)}`,
    verb: rng.pick(intransitive),
  };
  const core = rng.pick(CUES[kind])(parts);
  const around = rng.float();
  if (around < 0.2) return `${capitalise(rng.pick(times))}, ${core}.`;
  if (around < 0.4) return `${capitalise(core)} ${rng.pick(places)}.`;
  return `${capitalise(core)}.`;
}
