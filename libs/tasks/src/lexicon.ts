import { SPLITS, type Split } from '@fathom/contracts';
import { FRAMES, QUESTIONS, SUB_QUESTIONS } from './frames';
import { deriveSeed, type Rng } from '@fathom/contracts';
import { capitalise } from './text';
import { AGREEMENT_KINDS, FILLER, HYPHEN_PREFIXES, MODIFIERS, NOUNS } from './vocab';

/**
 * The open vocabulary: keys and answer values built from syllables, codes and fixed word lists, so no answer can be
 * memorised. Every generated entity belongs to exactly one split, decided by a hash of its text (`splitOf`); a task
 * of split s only ever names entities of s, so train, eval and heldout never share a needle entity. Pseudo-words are
 * also kept "clean": none occurs inside any word the filler or the frames can write (no "harp" in "harpist").
 */

const ONSETS = 'b br d dr f g gr h k l m n p r s t tr v w z th'.split(' ');
const VOWELS = 'a e i o u a e i o u ai ou'.split(' ');
const CODAS = ['', '', '', '', 'n', 'r', 'l', 's', 'm', 'nd'];
/** Code characters: no I, O, 0 or 1, which read alike. */
const CODE_LETTERS = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
const CODE_DIGITS = '23456789';

/** The split an entity belongs to: a hash of its lower-cased text, modulo 3. Stable across processes. */
export function splitOf(entity: string): Split {
  return SPLITS[deriveSeed('entity', entity.toLowerCase()) % SPLITS.length];
}

let reservedText: string | undefined;
/**
 * Every word filler and frames can write, lower-cased and joined with '|'. Frames are rendered with a placeholder
 * that is not a letter, so only their fixed words remain.
 */
export function reservedWords(): string {
  if (reservedText === undefined) {
    const slots = { key: '#', value: '#', other: '#', actor: '#' };
    const text = [
      ...Object.values(FILLER).flat(),
      ...Object.values(FRAMES).flatMap((frames) => frames.map((f) => f.render(slots))),
      ...[...Object.values(QUESTIONS), ...Object.values(SUB_QUESTIONS)].flatMap((ps) => ps.map((p) => p.render('#'))),
    ].join(' ');
    reservedText = `|${[...new Set(text.toLowerCase().split(/[^a-z]+/))].filter((w) => w !== '').join('|')}|`;
  }
  return reservedText;
}

/** True when `word` occurs inside no word the filler or the frames can write. */
export function isClean(word: string): boolean {
  return !reservedWords().includes(word.toLowerCase());
}

/** A lower-case pseudo-word of 2 syllables (3 one time in five), e.g. "vorlin", "talumen". Not necessarily clean. */
export function pseudoWord(rng: Rng): string {
  let word = '';
  for (let n = rng.chance(0.2) ? 3 : 2; n > 0; n--) word += rng.pick(ONSETS) + rng.pick(VOWELS) + rng.pick(CODAS);
  return word;
}

/** Draws with `make` until the result belongs to `split` and passes `accept`. */
export function drawInSplit(rng: Rng, split: Split, make: (rng: Rng) => string, accept = (_: string) => true): string {
  for (;;) {
    const entity = make(rng);
    if (splitOf(entity) === split && accept(entity)) return entity;
  }
}

/** Like `drawInSplit` for small candidate spaces that may hold no entity of the split: gives up after 64 draws. */
function tryDrawInSplit(
  rng: Rng,
  split: Split,
  make: (rng: Rng) => string,
  accept: (entity: string) => boolean,
): string | undefined {
  for (let attempt = 0; attempt < 64; attempt++) {
    const entity = make(rng);
    if (splitOf(entity) === split && accept(entity)) return entity;
  }
  return undefined;
}

/** A clean pseudo-word of at least 5 letters belonging to `split` (lower case). */
export function word(rng: Rng, split: Split, avoid: readonly string[] = []): string {
  return drawInSplit(rng, split, pseudoWord, (w) => w.length >= 5 && isClean(w) && !clashes(w, avoid));
}

/** A capitalised clean pseudo-word: a place ("Brenmoor"-like). */
export function place(rng: Rng, split: Split, avoid: readonly string[] = []): string {
  return capitalise(word(rng, split, avoid));
}

/** "Tamsel Orvik": two clean pseudo-words; the whole name belongs to `split`. */
export function person(rng: Rng, split: Split, avoid: readonly string[] = []): string {
  const part = (r: Rng) => {
    for (;;) {
      const w = pseudoWord(r);
      if (w.length >= 4 && isClean(w)) return capitalise(w);
    }
  };
  return drawInSplit(
    rng,
    split,
    (r) => `${part(r)} ${part(r)}`,
    (p) => !clashes(p, avoid),
  );
}

/** A code such as "K7-QX2". */
export function code(rng: Rng, split: Split, avoid: readonly string[] = []): string {
  const letter = (r: Rng) => r.pick([...CODE_LETTERS]);
  const digit = (r: Rng) => r.pick([...CODE_DIGITS]);
  return drawInSplit(
    rng,
    split,
    (r) => `${letter(r)}${digit(r)}-${letter(r)}${letter(r)}${digit(r)}`,
    (c) => !avoid.includes(c),
  );
}

/** True when one of the two texts contains the other (case-insensitive): they could not be told apart by search. */
function clashes(entity: string, others: readonly string[]): boolean {
  const e = entity.toLowerCase();
  return others.some((o) => {
    const l = o.toLowerCase();
    return l.includes(e) || e.includes(l);
  });
}

/** An object key and the near-duplicate names a distractor may use for something else. */
export interface ObjectKey {
  key: string;
  /** Near-duplicates: the bare noun, the key plus a part ("… stand"), the same noun with another modifier. */
  decoys: string[];
}

const OBJECT_FORMATS: readonly ((rng: Rng, noun: string) => string)[] = [
  (r, noun) => `${r.pick(MODIFIERS)} ${noun}`,
  (r, noun) => `${r.pick(HYPHEN_PREFIXES)}-${noun}`,
  (r, noun) => {
    for (;;) {
      const w = pseudoWord(r);
      if (w.length >= 4 && isClean(w)) return `${capitalise(w)} ${noun}`;
    }
  },
];

/** An object key of `split` ("brass lantern", "ink-chest", "Dravel kettle") that clashes with none of `avoid`. */
export function objectKey(rng: Rng, split: Split, avoid: readonly string[] = []): string {
  const format = rng.int(0, OBJECT_FORMATS.length - 1);
  return drawInSplit(
    rng,
    split,
    (r) => OBJECT_FORMATS[format](r, r.pick(NOUNS)),
    (k) => !clashes(k, avoid),
  );
}

/**
 * Near-duplicates of an object key: the bare noun ("lantern"), the key plus a part ("brass lantern stand") and, when
 * the split has one, the same noun with another modifier ("copper lantern").
 */
export function objectDecoys(rng: Rng, split: Split, key: string, parts: readonly string[]): string[] {
  const noun = key.split(/[ -]/).pop()!;
  const sameNoun = tryDrawInSplit(
    rng,
    split,
    (r) => OBJECT_FORMATS[r.int(0, 1)](r, noun),
    (k) => k !== key,
  );
  return [noun, `${key} ${rng.pick(parts)}`, ...(sameNoun === undefined ? [] : [sameNoun])];
}

/** An agreement key ("Dravel Accord of 1887" or "1887 Dravel Accord") and near-duplicates of it. */
export function agreementKey(rng: Rng, split: Split): { key: string; decoys: string[] } {
  const render = (s: string, k: string, y: number, f: number) => (f === 0 ? `${s} ${k} of ${y}` : `${y} ${s} ${k}`);
  const format = rng.int(0, 1);
  const kind = rng.pick(AGREEMENT_KINDS);
  const year = rng.int(1700, 2020);
  const key = drawInSplit(rng, split, (r) => render(capitalise(word(r, split)), kind, year, format));
  const stem = key.replace(/^\d+ /, '').split(' ')[0];
  const decoys = [
    tryDrawInSplit(
      rng,
      split,
      (r) => render(stem, kind, year + r.pick([-3, -2, -1, 1, 2, 3]), format),
      () => true,
    ),
    tryDrawInSplit(
      rng,
      split,
      (r) => render(stem, r.pick(AGREEMENT_KINDS), year, format),
      (k) => k !== key,
    ),
  ];
  return { key, decoys: decoys.filter((d): d is string => d !== undefined) };
}
