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
 * - With `sentenceRecency`, how late its sentence comes among the chunk's sentences that hold the most question words
 *   (`SENTENCE_RECENCIES`): the temporal encoding of End-To-End Memory Networks (Sukhbaatar et al. 2015), which number
 *   a story's sentences back from the question so that "where is the football?" can take the latest move. A state
 *   that changes (an object moved, a figure corrected) is the latest sentence about its key that still stands.
 *
 * The id is `shape + WORD_SHAPES.length × (sentenceMatch + SENTENCE_MATCHES.length × recency)`; 0 (`none`, no match,
 * no recency) marks every position outside the chunk (the prompt, the question, padding). A reader without recency
 * sees recency `none` everywhere, so its ids are the first `WORD_SHAPES.length × SENTENCE_MATCHES.length`.
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

/**
 * Where a token's sentence comes among the chunk's sentences that hold the most question words, counted back from the
 * chunk's end: the last of them, the one before it, an earlier one; `none` for every other sentence.
 */
export const SENTENCE_RECENCIES = ['none', 'last', 'second', 'earlier'] as const;
export type SentenceRecency = (typeof SENTENCE_RECENCIES)[number];

/** The number of word-feature ids (rows of `reader.word_feature_embedding`) of a reader with or without recency. */
export function wordFeatureCount(sentenceRecency: boolean): number {
  return WORD_SHAPES.length * SENTENCE_MATCHES.length * (sentenceRecency ? SENTENCE_RECENCIES.length : 1);
}

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

/** The word-feature id of a token: its word's shape, its sentence's match and recency. */
export function wordFeature(shape: WordShape, match: SentenceMatch, recency: SentenceRecency = 'none'): number {
  const sentence = SENTENCE_MATCHES.indexOf(match) + SENTENCE_MATCHES.length * SENTENCE_RECENCIES.indexOf(recency);
  return WORD_SHAPES.indexOf(shape) + WORD_SHAPES.length * sentence;
}

/**
 * The recency of each sentence given how many question words each holds (`held[sentence]`): the sentences holding
 * the most (at least one) are numbered back from the last; the others are `none`.
 */
export function sentenceRecencies(held: readonly number[]): SentenceRecency[] {
  const most = Math.max(0, ...held);
  const recencies = held.map((): SentenceRecency => 'none');
  if (most === 0) return recencies;
  let seen = 0;
  for (let i = held.length - 1; i >= 0; i--) {
    if (held[i] !== most) continue;
    recencies[i] = seen === 0 ? 'last' : seen === 1 ? 'second' : 'earlier';
    seen++;
  }
  return recencies;
}

/**
 * The part-of-speech tag of a chunk word, the token feature of DrQA (Chen et al. 2017: POS and NER tags from a tagger
 * beside the exact match), coarse enough to carry over to words never seen in training: a tagger knows that "never"
 * negates, "would" is modal, "Had" opens a condition and "listed" is past, where a hashed word id is a random bucket.
 * `negative`, `modal`, `condition` and the two verb tenses are the cues that tell a distractor from a fact; `none`
 * marks every position outside the chunk and the whitespace between words, `punctuation` a visible run between words.
 */
export const WORD_TAGS = [
  'none',
  'negative',
  'modal',
  'condition',
  'past-verb',
  'present-verb',
  'auxiliary',
  'pronoun',
  'proper-noun',
  'noun',
  'adjective',
  'adverb',
  'preposition',
  'conjunction',
  'determiner',
  'value',
  'date',
  'punctuation',
  'other',
] as const;
export type WordTag = (typeof WORD_TAGS)[number];

/** The coarse tag of a word from its tagger's tags (compromise's names: "Negative", "PastTense", …), first match wins. */
export function wordTag(tags: ReadonlySet<string>): WordTag {
  if (tags.has('Negative')) return 'negative';
  if (tags.has('Modal')) return 'modal';
  if (tags.has('Condition')) return 'condition';
  if (tags.has('Verb') && tags.has('PastTense')) return 'past-verb';
  if (tags.has('Auxiliary')) return 'auxiliary';
  if (tags.has('Verb')) return 'present-verb';
  if (tags.has('Pronoun')) return 'pronoun';
  if (tags.has('Date')) return 'date';
  if (tags.has('Value')) return 'value';
  if (tags.has('ProperNoun')) return 'proper-noun';
  if (tags.has('Noun')) return 'noun';
  if (tags.has('Adjective')) return 'adjective';
  if (tags.has('Adverb')) return 'adverb';
  if (tags.has('Preposition')) return 'preposition';
  if (tags.has('Conjunction') || tags.has('Connector')) return 'conjunction';
  if (tags.has('Determiner')) return 'determiner';
  return 'other';
}
