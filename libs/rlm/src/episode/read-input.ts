import type { SpanRead } from '@fathom/contracts';
import {
  sentenceMatch,
  sentenceRecencies,
  wordFeature,
  wordShape,
  wordVectorIndex,
  WORD_TAGS,
  type WordShape,
  type WordVectors,
} from '@fathom/model';
import { renderSubcallPrompt, segmentsText } from '../prompt';
import { SUBCALL_UNKNOWN } from '../teacher/oracle';
import type { PolicyTokenizer } from './policy';
import { tagText } from './word-tags';

/**
 * Words that say how a question asks, not what about: they never count as an exact match (DrQA's exact-match feature
 * skips them too), so "the" or "what" in a question does not light up every sentence of a chunk.
 */
const FUNCTION_WORDS = new Set(
  (
    'a an the of in on at to for from by with about into onto over under after before during since until and or but ' +
    'not no is are was were be been being am do does did done has have had having it its this that these those there ' +
    'what which who whom whose where when why how than then so as if at any some all each every much many one ' +
    'can could may might must shall should will would please tell me name give say said find'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;
const OTHER_TAG = WORD_TAGS.indexOf('other');
const PUNCTUATION_TAG = WORD_TAGS.indexOf('punctuation');
/** The text between two words when the second opens a sentence. */
const SENTENCE_END = /[.!?\n]/u;

/** One word of the chunk: its characters `[charStart, charEnd)` in the chunk, its tokens `[tokStart, tokEnd]`. */
export interface ChunkWord {
  charStart: number;
  charEnd: number;
  tokStart: number;
  /** Inclusive. */
  tokEnd: number;
}

/**
 * A leaf read as the span head sees it: the sub-call prompt's ids (the one renderer's `renderSubcallPrompt`), the
 * exact-match and word-feature inputs of each id, the chunk's words (the places a span may start and end) and the
 * no-answer position.
 */
export interface ReadInput {
  ids: number[];
  /** 1 at chunk tokens whose word (case-folded, function words aside) also occurs in the question, else 0. */
  match: number[];
  /** The word-feature id (`wordFeature`) of each chunk token; 0 elsewhere. */
  feature: number[];
  /** The part-of-speech tag (a `WORD_TAGS` index) of each chunk token, for a reader with word tags; 0 elsewhere. */
  tag: number[];
  /** The word-vector row of each chunk token (its case-folded word's, `WordVectors.index`); 0 elsewhere. */
  vector: number[];
  words: ChunkWord[];
  /** The prompt's last position, whose start and end logits stand for "the chunk does not say". */
  none: number;
}

/** The question's content words, case-folded. */
export function questionWords(question: string): Set<string> {
  const words = new Set<string>();
  for (const m of question.matchAll(WORD)) {
    const w = m[0].toLowerCase();
    if (!FUNCTION_WORDS.has(w)) words.add(w);
  }
  return words;
}

/** One word of the chunk before encoding: where it is, whether the question holds it, the sentence it is in. */
interface Scanned {
  start: number;
  text: string;
  matched: boolean;
  shape: WordShape;
  sentence: number;
}

/** The chunk's words, each with its exact match, shape and sentence (a new one after ".", "!", "?" or a line break). */
function scanChunk(chunk: string, asked: ReadonlySet<string>): Scanned[] {
  const words: Scanned[] = [];
  let offset = 0;
  let sentence = 0;
  for (const m of chunk.matchAll(WORD)) {
    const opens = words.length === 0 || SENTENCE_END.test(chunk.slice(offset, m.index));
    if (opens && words.length > 0) sentence++;
    const text = m[0];
    words.push({
      start: m.index,
      text,
      matched: asked.has(text.toLowerCase()),
      shape: wordShape(text, opens),
      sentence,
    });
    offset = m.index + text.length;
  }
  return words;
}

/**
 * Which word features a reader takes beyond shape and sentence match, and its word vectors (`ReaderHeads` of
 * `@fathom/model`).
 */
export interface ReadFeatures {
  sentenceRecency?: boolean;
  wordTags?: boolean;
  wordVectors?: WordVectors;
}

/**
 * Encodes `llm(question, chunk)`'s prompt for the span head. The chunk is encoded word by word (and each run between
 * words on its own), so every word's tokens are known and no token straddles a word edge; for the byte-level
 * tokenizer the ids are exactly those of the rendered prompt. Each chunk token's word feature is its word's shape
 * (a run between words: its own), how many of the question's content words its sentence holds and, with
 * `sentenceRecency`, how late its sentence comes among those holding the most; with `wordVectors`, each chunk token
 * also carries its word's row (a run between words: its visible characters', as GloVe has rows for punctuation);
 * with `wordTags`, each chunk token carries its word's part-of-speech tag (`tagText`; a run between words:
 * `punctuation` where it shows, `none` where it is blank).
 */
export function encodeReadInput(
  question: string,
  chunk: string,
  tokenizer: PolicyTokenizer,
  features: ReadFeatures = {},
): ReadInput {
  const text = segmentsText(renderSubcallPrompt(question, chunk));
  const at = text.lastIndexOf(chunk);
  const ids = tokenizer.encode(text.slice(0, at));
  const match = ids.map(() => 0);
  const feature = ids.map(() => 0);
  const tag = ids.map(() => 0);
  const vector = ids.map(() => 0);
  const index = features.wordVectors && wordVectorIndex(features.wordVectors);
  const rowOf = (piece: string) => index?.get(piece.toLowerCase()) ?? 0;
  const tagAt = features.wordTags ? tagText(chunk) : undefined;
  const tagOf = (start: number) => (tagAt === undefined ? 0 : tagAt(start) || OTHER_TAG);
  const asked = questionWords(question);
  const scanned = scanChunk(chunk, asked);
  // Each sentence's distinct question words.
  const held = Array.from({ length: (scanned.at(-1)?.sentence ?? -1) + 1 }, () => new Set<string>());
  for (const w of scanned) if (w.matched) held[w.sentence].add(w.text.toLowerCase());
  const heldBy = held.map((words) => words.size);
  const recencies = features.sentenceRecency ? sentenceRecencies(heldBy) : heldBy.map(() => 'none' as const);
  const sentenceOf = (sentence: number) =>
    [sentenceMatch(heldBy[sentence] ?? 0, asked.size), recencies[sentence] ?? 'none'] as const;
  const words: ChunkWord[] = [];
  const push = (piece: string, matched: number, id: number, row = 0, tagged = 0) => {
    for (const token of tokenizer.encode(piece)) {
      ids.push(token);
      match.push(matched);
      feature.push(id);
      tag.push(tagged);
      vector.push(row);
    }
  };
  const between = (piece: string, sentence: number) => {
    const visible = piece.trim();
    if (visible === '') push(piece, 0, 0);
    else {
      const id = wordFeature(wordShape(visible, false), ...sentenceOf(sentence));
      push(piece, 0, id, rowOf(visible), tagAt === undefined ? 0 : PUNCTUATION_TAG);
    }
  };
  let offset = 0;
  let sentence = 0; // a run between words belongs to the sentence it follows (it holds that sentence's full stop)
  for (const w of scanned) {
    if (w.start > offset) between(chunk.slice(offset, w.start), sentence);
    sentence = w.sentence;
    const tokStart = ids.length;
    push(w.text, w.matched ? 1 : 0, wordFeature(w.shape, ...sentenceOf(w.sentence)), rowOf(w.text), tagOf(w.start));
    if (ids.length > tokStart)
      words.push({ charStart: w.start, charEnd: w.start + w.text.length, tokStart, tokEnd: ids.length - 1 });
    offset = w.start + w.text.length;
  }
  if (offset < chunk.length) between(chunk.slice(offset), sentence);
  push(text.slice(at + chunk.length), 0, 0);
  return { ids, match, feature, tag, vector, words, none: ids.length - 1 };
}

/**
 * The read as the span graphs take it (`SpanReadInput` of `@fathom/model`) and a trained read keeps it (`SpanRead`):
 * ids, exact-match and word-feature inputs, and the chunk's word starts and ends as the span's candidates.
 */
export function spanReadInput(input: ReadInput): NonNullable<SpanRead['input']> {
  return {
    ids: input.ids,
    match: input.match,
    feature: input.feature,
    ...(input.tag.some((t) => t > 0) && { tag: input.tag }),
    ...(input.vector.some((v) => v > 0) && { vector: input.vector }),
    starts: input.words.map((w) => w.tokStart),
    ends: input.words.map((w) => w.tokEnd),
    none: input.none,
  };
}

/** The text of a read: the chunk's characters under the span, or "unknown" for the no-answer position. */
export function spanText(input: ReadInput, chunk: string, start: number, end: number): string {
  if (start === input.none) return SUBCALL_UNKNOWN;
  const first = input.words.find((w) => w.tokStart === start);
  const last = input.words.find((w) => w.tokEnd === end);
  if (first === undefined || last === undefined || last.charEnd < first.charStart)
    throw new RangeError(`span ${start}..${end} does not start and end on words of the chunk`);
  return chunk.slice(first.charStart, last.charEnd);
}

/**
 * The span that answers `answer` in the chunk, as token positions: its last occurrence that starts and ends on word
 * edges and lies outside every `avoid` range (a distractor's sentence), else its last occurrence anywhere; the
 * no-answer position for "unknown"; null when the chunk does not contain it on word edges (nothing to point at).
 * The last, because a value stated twice is a state that came back: an object moved back to where it started is
 * there by its last move, and a span on its first place would teach a reader that the starting sentence answers.
 */
export function goldSpan(
  input: ReadInput,
  chunk: string,
  answer: string,
  avoid: readonly { start: number; end: number }[] = [],
): { start: number; end: number } | null {
  if (answer.trim().toLowerCase() === SUBCALL_UNKNOWN) return { start: input.none, end: input.none };
  const byStart = new Map(input.words.map((w) => [w.charStart, w]));
  const byEnd = new Map(input.words.map((w) => [w.charEnd, w]));
  const found: { start: number; end: number; inside: boolean }[] = [];
  const haystack = chunk.toLowerCase();
  const needle = answer.trim().toLowerCase();
  if (needle === '') return null;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + 1)) {
    const first = byStart.get(i);
    const last = byEnd.get(i + needle.length);
    if (first === undefined || last === undefined) continue;
    const inside = avoid.some((r) => i >= r.start && i < r.end);
    found.push({ start: first.tokStart, end: last.tokEnd, inside });
  }
  const pick = found.findLast((f) => !f.inside) ?? found.at(-1);
  return pick === undefined ? null : { start: pick.start, end: pick.end };
}
