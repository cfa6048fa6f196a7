/**
 * The word-feature input of a span reader: one id per chunk token, after the hand-made token features of extractive
 * QA readers and NER taggers, that hashed-word tokens hide.
 *
 * - Its word's shape (`WORD_SHAPES`): the orthographic feature of NER taggers (Collins 2002's word shapes; Chiu &
 *   Nichols 2016's casing feature). Without it a reader cannot tell a code ("M3-CS6"), a number or a name from any
 *   other word it has never seen, and learns a frame's wording instead.
 * - How much of the question its sentence holds (`SENTENCE_MATCHES`): the exact match lifted to the sentence, as
 *   answer-sentence selection's word-overlap feature (Yu et al. 2014; WikiQA's word-count baseline, Yang et al. 2015).
 *   The value of a fact sits in the sentence about its key, whatever the sentence's wording.
 *
 * The id is `shape + WORD_SHAPES.length × sentenceMatch`; 0 (`none`, no match) marks every position outside the chunk
 * (the prompt, the question, padding).
 */
export const WORD_SHAPES = [
  'none',
  'other',
  'lower',
  'capitalised-first',
  'capitalised',
  'upper',
  'digits',
  'letters-digits',
] as const;
export type WordShape = (typeof WORD_SHAPES)[number];

/** How many of the question's content words a token's sentence holds: none, some, or at least half of them. */
export const SENTENCE_MATCHES = ['none', 'some', 'most'] as const;
export type SentenceMatch = (typeof SENTENCE_MATCHES)[number];

/** The number of word-feature ids (rows of `reader.word_feature_embedding`). */
export const WORD_FEATURE_COUNT = WORD_SHAPES.length * SENTENCE_MATCHES.length;

const LOWER = /^\p{Ll}+$/u;
const CAPITALISED = /^\p{Lu}\p{Ll}*$/u;
const UPPER = /^\p{Lu}{2,}$/u;
const DIGITS = /^\p{N}+$/u;
const LETTERS_DIGITS = /^(?=.*\p{N})(?=.*\p{L})[\p{L}\p{N}]+$/u;

/**
 * The shape of one piece of chunk text, a word (letters and digits) or a run between words: `other` is punctuation
 * and mixed-case words. `sentenceFirst` tells a capitalised word that opens a sentence from one inside it (a name).
 */
export function wordShape(piece: string, sentenceFirst: boolean): WordShape {
  if (LOWER.test(piece)) return 'lower';
  if (CAPITALISED.test(piece)) return sentenceFirst ? 'capitalised-first' : 'capitalised';
  if (UPPER.test(piece)) return 'upper';
  if (DIGITS.test(piece)) return 'digits';
  if (LETTERS_DIGITS.test(piece)) return 'letters-digits';
  return 'other';
}

/** The sentence match of a sentence holding `held` of the question's `asked` content words. */
export function sentenceMatch(held: number, asked: number): SentenceMatch {
  if (held === 0) return 'none';
  return 2 * held >= asked ? 'most' : 'some';
}

/** The word-feature id of a token: its word's shape and its sentence's match. */
export function wordFeature(shape: WordShape, match: SentenceMatch): number {
  return WORD_SHAPES.indexOf(shape) + WORD_SHAPES.length * SENTENCE_MATCHES.indexOf(match);
}
