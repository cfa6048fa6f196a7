import type { Family, ReaderKind, Split, TaskType } from '@fathom/contracts';
import { fillerSentence } from './filler';
import {
  OWNER_OF_QUESTION,
  QUESTIONS,
  SUB_QUESTIONS,
  inventable,
  inventedQuestion,
  phrasingsOf,
  type Phrasing,
} from './frames';
import { DEFAULT_VARIANT_RATES, resolveShare } from './generator';
import { ORACLE_UNKNOWN } from './oracle';
import { deriveSeed, Rng } from '@fathom/contracts';
import { BUILDERS, type Insert } from './task-types';
import { TasksError } from './errors';

/** One leaf sub-call of the reader curriculum: `llm(question, chunk)` should answer `answer`. */
export interface ReaderExample {
  question: string;
  chunk: string;
  /** The gold value, or "unknown" when the chunk does not hold the fact. */
  answer: string;
  type: ReaderKind;
  /** The family of the question phrasing and of every frame in the chunk. */
  family: Family;
  /**
   * The task's other sentences in the chunk, in chunk order: each one's frame kind ("negation", "reported", "move",
   * …), or `OTHER_ENTITY` when it is written with an evidence frame about another entity, and where it is in `chunk`.
   */
  distractors: ChunkDistractor[];
}

/** One distractor sentence of a reader chunk: its kind and its character span `[start, end)` in the chunk. */
export interface ChunkDistractor {
  kind: string;
  start: number;
  end: number;
}

/** The label of a distractor written with the evidence's own frame about another entity (a decoy, a bystander). */
export const OTHER_ENTITY = 'other_entity';

export interface ReaderExampleOptions {
  split: Split;
  n: number;
  seed?: number;
  /** Longest chunk, in characters; default 1000. At least 400. */
  maxChunkChars?: number;
  /**
   * Share of examples whose chunk is the evidence alone, no distractors and no filler (an "unknown" example gets one
   * distractor sentence, or one sentence of evidence that needs several): the first stage of a reader curriculum that
   * then grows the chunk, and the one-sentence reads of a program that reads hit by hit. Default 0.
   */
  evidenceShare?: number;
  /**
   * Share of examples whose chunk holds only sentences about the task's entities — the evidence among every distractor
   * of its task, in random order, no filler: the chunk `search(question)` hands a reader in an episode. Drawn for
   * examples that are neither copy drills nor evidence-only. Default 0.
   */
  keyShare?: number;
  /**
   * Share of the other examples whose chunk lacks the evidence (its distractors, and filler, without the fact), answered
   * "unknown": a reader learns from them that a distractor does not state the fact. Default `READER_UNKNOWN_SHARE`.
   */
  unknownShare?: number;
  /**
   * Share of copy drills (`copyDrill`): the chunk is 1–4 random words, codes and numbers, and the answer is the
   * whole chunk, so no prior can supply it and only copying scores. Default 0.
   */
  copyShare?: number;
  /**
   * Share of recall drills (`recallDrill`): 3–7 facts in one frame about nonsense keys and a question about one of
   * them, so only matching the key scores. Drawn from the examples that are not copy drills. Default 0.
   */
  recallShare?: number;
  /**
   * Share of the task examples whose key-to-value sentences (needles, owners, homes, and decoys about other entities
   * written like them) use invented frames (`inventedSentence`): random filler words between the key and the value,
   * so a reader cannot rely on a frame's wording. Meaning distractors keep their written frames (see
   * `inventedDistractorShare`). Default 0.
   */
  inventedShare?: number;
  /**
   * Share of the task examples whose negation, hypothetical, correction and past-state distractors are invented
   * (`inventedDistractor`): filler words between the key and the wrong value and a meaning cue in varied places, so a
   * reader learns to refuse the meaning rather than one written wording. Drawn independently of `inventedShare`.
   * Default 0.
   */
  inventedDistractorShare?: number;
  /**
   * Share of the task examples (tracking aside) whose question is invented (`inventedQuestion`): an opening and filler
   * words before the key, nothing about what is asked, so a reader cannot lean on a phrasing's wording. Drawn
   * independently of `inventedShare`. Default 0.
   */
  inventedQuestionShare?: number;
  /**
   * Share of the task examples of the types other than multi_hop asked as `OWNER_OF_QUESTION` before their task
   * question, answered "unknown": nothing there has an owner. A program that reads the owner of whatever it is asked
   * (multi_hop's first hop) then hears "unknown" where the question is about something else, and can fall back to
   * reading the question itself. Drawn independently of the chunk kind. Default 0.
   */
  unownedShare?: number;
  /**
   * Share of the task examples drawn as shared-chunk groups (`drawGroup`): 2–4 sub-questions of different tasks over
   * one chunk that holds the evidence of each, one example per sub-question, written one after another. Drawn
   * independently of the chunk kind, which a group replaces; its chunk holds no filler. Default 0.
   */
  sharedShare?: number;
}

const DRILL_QUESTIONS = [
  'Copy the text exactly.',
  'Repeat the text word for word.',
  'Write the text out exactly.',
  'Quote the text.',
] as const;
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];
const CODE_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];
const CODE_LETTERS = CODE_CHARS.slice(0, 26);

/** One random drill word: a letter string (half capitalised), a code like `F5M-NXY`, or a number. */
function drillWord(rng: Rng): string {
  const draw = (chars: readonly string[], n: number) => Array.from({ length: n }, () => rng.pick(chars)).join('');
  const kind = rng.float();
  if (kind < 0.4) {
    const word = draw(LETTERS, rng.int(3, 9));
    return rng.chance(0.5) ? word[0].toUpperCase() + word.slice(1) : word;
  }
  if (kind < 0.7) return `${draw(CODE_CHARS, rng.int(1, 3))}-${draw(CODE_CHARS, rng.int(2, 4))}`;
  return String(rng.int(0, 10 ** rng.int(1, 5)));
}

/** A copy drill: "Copy the text exactly." over 1–4 random drill words; the answer is the chunk itself. */
function copyDrill(rng: Rng): ReaderExample {
  const chunk = Array.from({ length: rng.int(1, 4) }, () => drillWord(rng)).join(' ');
  return { question: rng.pick(DRILL_QUESTIONS), chunk, answer: chunk, type: 'copy', family: 'train', distractors: [] };
}

const CONSONANTS = [...'bcdfghklmnprstvwz'];
const VOWELS = [...'aeiou'];

/** A pronounceable nonsense word of two or three consonant-vowel syllables ("dihir", "caropol"). */
function syllableWord(rng: Rng): string {
  const syllables = Array.from({ length: rng.int(2, 3) }, () => rng.pick(CONSONANTS) + rng.pick(VOWELS));
  return syllables.join('') + rng.pick(['', 'n', 'r', 'l', 's']);
}

/** A code like `TM6-16L`: one or two letters, a digit, a hyphen, three letters or digits. */
function recallCode(rng: Rng): string {
  const head = Array.from({ length: rng.int(1, 2) }, () => rng.pick(CODE_LETTERS)).join('');
  return `${head}${rng.int(1, 9)}-${Array.from({ length: 3 }, () => rng.pick(CODE_CHARS)).join('')}`;
}

/**
 * A recall drill: 3–7 sentences "The code of the <key> is <code>." about two-word nonsense keys whose first words
 * come from half as many words (so most keys share theirs with another), and the question "What is the code of the
 * <key>?" about one of them. Every sentence has the same frame, so nothing but the key tells which code answers: it
 * measures and trains key-to-value lookup alone. The other sentences are labelled `OTHER_ENTITY`.
 */
function recallDrill(rng: Rng): ReaderExample {
  const count = rng.int(3, 7);
  const firsts = Array.from({ length: Math.max(1, count >> 1) }, () => syllableWord(rng));
  const keys = new Set<string>();
  while (keys.size < count) keys.add(`${rng.pick(firsts)} ${syllableWord(rng)}`);
  const facts = [...keys].map((key) => ({ key, code: recallCode(rng) }));
  const asked = rng.int(0, count - 1);
  const sentences = facts.map(({ key, code }, i) => ({
    text: `The code of the ${key} is ${code}.`,
    ...(i !== asked && { label: OTHER_ENTITY }),
  }));
  const { key, code } = facts[asked];
  const { chunk, distractors } = chunkOf(sentences);
  return {
    question: `What is the code of the ${key}?`,
    chunk,
    answer: code,
    type: 'recall',
    family: 'train',
    distractors,
  };
}

/** Types whose facts a leaf reader is asked about (a count has no evidence sentence, so counting has none). */
export const READER_TYPES: readonly TaskType[] = ['niah', 'extractive', 'multi_needle', 'tracking', 'multi_hop'];
/** Share of examples whose chunk lacks the evidence, answered "unknown", unless `unknownShare` says otherwise. */
export const READER_UNKNOWN_SHARE = 0.1;

/**
 * What sub-question `index` of a task of `type` asks about: its key, the frame kind of its evidence (`relation`) and
 * its phrasings — a multi_needle item's price, a multi_hop hop (owner, then home), the task question otherwise.
 */
function subQuestion(
  type: TaskType,
  index: number,
  keys: readonly string[],
): { key: string; relation: string; phrasings: readonly Phrasing[] } {
  if (type === 'multi_needle') return { key: keys[index], relation: 'needle', phrasings: SUB_QUESTIONS.price };
  if (type === 'multi_hop')
    return index === 0
      ? { key: keys[index], relation: 'owner', phrasings: SUB_QUESTIONS.owner }
      : { key: keys[index], relation: 'home', phrasings: SUB_QUESTIONS.home };
  return { key: keys[0], relation: 'needle', phrasings: QUESTIONS[type] };
}

/** Which of an example's wordings are invented: its key-to-value sentences, its meaning distractors, its question. */
/** How one task example departs from its task's written frames and question. */
interface Variants {
  /** Invented key-to-value frames (`inventedShare`). */
  frames: boolean;
  /** Invented meaning distractors (`inventedDistractorShare`). */
  distractors: boolean;
  /** An invented question (`inventedQuestionShare`). */
  question: boolean;
  /** An owner question about a task that has no owner, answered "unknown" (`unownedShare`). */
  unowned: boolean;
}

/** What a chunk holds besides the evidence: nothing, every distractor of its task, or 1–4 distractors and filler. */
type ChunkKind = 'evidence' | 'key' | 'full';

/** A chunk sentence with its distractor label (none for evidence and filler). */
interface Sentence {
  text: string;
  label?: string;
}

/**
 * One sub-question of a freshly built task: the question as asked, its answer ("unknown" when `unknown` drops the
 * evidence), its key, its evidence sentences in order, and the task's other sentences labelled as distractors.
 */
interface Subject {
  type: TaskType;
  question: string;
  answer: string;
  key: string;
  /** Asked without its evidence in the chunk (`statedEvidence` is empty), so answered "unknown". */
  unknown: boolean;
  /** The sentences that state the answer, in document order, whether or not the chunk shows them. */
  evidence: Sentence[];
  pool: Sentence[];
}

/** The evidence a subject's chunk holds: all of it, or none when the subject is asked "unknown". */
function statedEvidence(subject: Subject): Sentence[] {
  return subject.unknown ? [] : subject.evidence;
}

/**
 * Share of multi_hop first hops asked as `OWNER_OF_QUESTION` before the task question (the form a program that copies
 * nothing from the question asks) instead of a phrasing of "who owns the object".
 */
const OWNER_OF_QUESTION_SHARE = 0.5;

/** Builds a task of a random reader type and picks one of its sub-questions, or undefined when it has no distractor. */
function drawSubject(
  rng: Rng,
  split: Split,
  family: Family,
  unknownShare: number,
  invent: Variants,
): Subject | undefined {
  const type = rng.pick(READER_TYPES);
  const rates = DEFAULT_VARIANT_RATES[type];
  const draft = BUILDERS[type].build(rng, {
    split,
    family,
    rates,
    invent: { frames: invent.frames, distractors: invent.distractors },
  });
  const index = rng.int(0, draft.meta.subquestions.length - 1);
  const sub = draft.meta.subquestions[index];
  const { key, relation, phrasings } = subQuestion(type, index, draft.meta.keys);
  const question =
    invent.question && inventable(type, relation)
      ? inventedQuestion(rng, type, relation, key)
      : type === 'multi_hop' && index === 0 && rng.chance(OWNER_OF_QUESTION_SHARE)
        ? OWNER_OF_QUESTION + draft.question
        : rng.pick(phrasingsOf(phrasings, family)).render(key);
  const unknown = rng.chance(unknownShare);
  const unowned = invent.unowned && type !== 'multi_hop';

  const evidenceKinds = new Set(draft.inserts.filter((i) => sub.evidence.includes(i.text)).map((i) => i.kind));
  const pool = draft.inserts
    .filter((i) => !sub.evidence.includes(i.text))
    .map((i: Insert) => ({ text: i.text, label: evidenceKinds.has(i.kind) ? OTHER_ENTITY : i.kind }));
  if (pool.length === 0) return undefined;
  return {
    type,
    question: unowned ? OWNER_OF_QUESTION + draft.question : question,
    answer: unknown || unowned ? ORACLE_UNKNOWN : sub.answer,
    key,
    unknown,
    evidence: sub.evidence.map((text) => ({ text })),
    pool,
  };
}

/** `sentences` joined into a chunk (one space between them), with each labelled sentence's span recorded. */
function chunkOf(sentences: readonly Sentence[]): { chunk: string; distractors: ChunkDistractor[] } {
  const distractors: ChunkDistractor[] = [];
  let start = 0;
  for (const { text, label } of sentences) {
    if (label !== undefined) distractors.push({ kind: label, start, end: start + text.length });
    start += text.length + 1;
  }
  return { chunk: sentences.map((s) => s.text).join(' '), distractors };
}

/** The example a subject's question makes of `sentences`. */
function toExample(subject: Subject, family: Family, sentences: readonly Sentence[]): ReaderExample {
  const { question, answer, type } = subject;
  const { chunk, distractors } = chunkOf(sentences);
  return { question, chunk, answer, type, family, distractors };
}

/** The characters `sentences` take as a chunk (one space between them). */
function chunkLength(sentences: readonly Sentence[]): number {
  return Math.max(0, sentences.reduce((sum, s) => sum + s.text.length + 1, 0) - 1);
}

/** `evidence` in its order with `distractors` put anywhere between. */
function spliceDistractors(rng: Rng, evidence: readonly Sentence[], distractors: readonly Sentence[]): Sentence[] {
  const sentences = [...evidence];
  for (const d of distractors) sentences.splice(rng.int(0, sentences.length), 0, d);
  return sentences;
}

/** Builds one example from `rng`, or undefined when the drawn task cannot fit a chunk (the caller draws again). */
function drawExample(
  rng: Rng,
  split: Split,
  family: Family,
  maxChars: number,
  chunkKind: ChunkKind,
  unknownShare: number,
  invent: Variants,
): ReaderExample | undefined {
  const subject = drawSubject(rng, split, family, unknownShare, invent);
  if (subject === undefined) return undefined;
  const { pool } = subject;
  const evidence = statedEvidence(subject);
  if (chunkKind === 'evidence') {
    // Without the fact: one distractor, or one sentence of evidence that needs others (a single move of an object
    // whose final place takes all its moves), which does not state the answer on its own either.
    const partial = subject.evidence.length > 1 ? subject.evidence : [];
    const only = toExample(subject, family, subject.unknown ? [rng.pick([...pool, ...partial])] : evidence);
    return only.chunk.length > maxChars ? undefined : only;
  }
  const distractors = rng.sample(pool, chunkKind === 'key' ? pool.length : rng.int(1, Math.min(4, pool.length)));
  const sentences = spliceDistractors(rng, evidence, distractors);
  let length = chunkLength(sentences) + 1;
  if (length > maxChars) return undefined;
  if (chunkKind === 'key') return toExample(subject, family, sentences);
  const target = rng.int(Math.min(length + 1, maxChars), maxChars);
  for (let attempt = 0; attempt < 40 && length < target; attempt++) {
    const filler = fillerSentence(rng);
    if (length + filler.length + 1 > maxChars) continue;
    sentences.splice(rng.int(0, sentences.length), 0, { text: filler });
    length += filler.length + 1;
  }
  return toExample(subject, family, sentences);
}

/** Largest number of sub-questions that share one chunk in a shared-chunk group. */
export const SHARED_GROUP_MAX = 4;

/**
 * A shared-chunk group: the sub-questions of 2–`SHARED_GROUP_MAX` different tasks, each with its evidence (or, asked
 * "unknown", without it) and 0–2 of its own distractors, merged into one chunk with each task's sentences in their
 * order; then one example per sub-question, all over that chunk. The same text answers each question differently, so
 * only the question's key tells which sentence to read. Undefined when a key appears among another task's sentences
 * or the chunk is empty or does not fit (the caller draws again). Every other task's sentence is labelled
 * `OTHER_ENTITY` in an example's `distractors`.
 */
function drawGroup(
  rng: Rng,
  split: Split,
  family: Family,
  maxChars: number,
  unknownShare: number,
  invent: Variants,
): ReaderExample[] | undefined {
  const size = rng.int(2, SHARED_GROUP_MAX);
  const members: { subject: Subject; sentences: Sentence[] }[] = [];
  for (let m = 0; m < size; m++) {
    const subject = drawSubject(rng, split, family, unknownShare, invent);
    if (subject === undefined) return undefined;
    const own = rng.sample(subject.pool, rng.int(0, Math.min(2, subject.pool.length)));
    members.push({ subject, sentences: spliceDistractors(rng, statedEvidence(subject), own) });
  }
  for (const { subject } of members)
    for (const other of members)
      if (other.subject !== subject && other.sentences.some((s) => s.text.includes(subject.key))) return undefined;
  // A random merge that keeps each task's sentences in their order: the next sentence comes from a member chosen in
  // proportion to the sentences it has left.
  const order: number[] = members.flatMap((member, m) => member.sentences.map(() => m));
  rng.shuffle(order);
  const next = members.map(() => 0);
  const merged = order.map((m) => ({ member: m, sentence: members[m].sentences[next[m]++] }));
  if (merged.length === 0 || chunkLength(merged.map((e) => e.sentence)) > maxChars) return undefined;
  return members.map(({ subject }, m) =>
    toExample(
      subject,
      family,
      merged.map(({ member, sentence }) => (member === m ? sentence : { text: sentence.text, label: OTHER_ENTITY })),
    ),
  );
}

/**
 * The reader curriculum: leaf sub-call examples written with the task generator's own frames and phrasings. Each
 * chunk (at most `maxChunkChars`) holds the evidence of one sub-question among 1–4 distractor sentences of the same
 * task (other values for the same key, near-duplicate entities, other items or people) and filler; the question is a
 * phrasing of that sub-question's family. About 10% of chunks (`unknownShare`) lack the evidence and are answered
 * "unknown".
 * Families: train and eval use the train families; heldout alternates train and heldout. Entities come from the
 * split's partition. A share of examples can be copy drills (`copyShare`), recall drills (`recallShare`),
 * evidence-only chunks (`evidenceShare`) or key-sentence chunks (`keyShare`, of the rest), and a share of the task
 * examples is written with invented frames (`inventedShare`), invented meaning distractors
 * (`inventedDistractorShare`) or asks an invented question (`inventedQuestionShare`); a share comes in shared-chunk
 * groups (`sharedShare`). Each example names the kinds of distractor its chunk holds (`distractors`), so a reader's
 * mistakes can be counted by kind.
 * Deterministic in the options; lazy, one example at a time; about 6,000 examples per second on the 2-core
 * development machine.
 */
export function generateReaderExamples(options: ReaderExampleOptions): Generator<ReaderExample> {
  const { split, n } = options;
  const seed = options.seed ?? 0;
  const maxChars = options.maxChunkChars ?? 1000;
  if (!Number.isSafeInteger(n) || n < 0)
    throw new TasksError('INVALID_OPTIONS', `n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(maxChars) || maxChars < 400)
    throw new TasksError('INVALID_OPTIONS', `maxChunkChars must be an integer >= 400, got ${maxChars}`);
  const evidenceShare = resolveShare('evidenceShare', options.evidenceShare);
  const copyShare = resolveShare('copyShare', options.copyShare);
  const recallShare = resolveShare('recallShare', options.recallShare);
  const keyShare = resolveShare('keyShare', options.keyShare);
  const unknownShare = resolveShare('unknownShare', options.unknownShare ?? READER_UNKNOWN_SHARE);
  const inventedShare = resolveShare('inventedShare', options.inventedShare);
  const inventedQuestionShare = resolveShare('inventedQuestionShare', options.inventedQuestionShare);
  const inventedDistractorShare = resolveShare('inventedDistractorShare', options.inventedDistractorShare);
  const sharedShare = resolveShare('sharedShare', options.sharedShare);
  const unownedShare = resolveShare('unownedShare', options.unownedShare);
  return (function* () {
    for (let index = 0; index < n; index++) {
      const rng = new Rng(deriveSeed('reader', seed, split, index, maxChars));
      // The kind comes from its own stream, so shares of 0 leave every other example as it was.
      const kind = new Rng(deriveSeed('reader-kind', seed, split, index));
      if (kind.chance(copyShare)) {
        yield copyDrill(rng);
        continue;
      }
      if (new Rng(deriveSeed('reader-recall', seed, split, index)).chance(recallShare)) {
        yield recallDrill(rng);
        continue;
      }
      const chunkKind: ChunkKind = kind.chance(evidenceShare) ? 'evidence' : kind.chance(keyShare) ? 'key' : 'full';
      const invent = {
        frames: kind.chance(inventedShare),
        question: kind.chance(inventedQuestionShare),
        distractors: kind.chance(inventedDistractorShare),
        // Its own stream, so a share of 0 leaves every other draw as it was.
        unowned: new Rng(deriveSeed('reader-unowned', seed, split, index)).chance(unownedShare),
      };
      const family: Family = split === 'heldout' && index % 2 === 1 ? 'heldout' : 'train';
      if (kind.chance(sharedShare)) {
        let group: ReaderExample[] | undefined;
        while (group === undefined) group = drawGroup(rng, split, family, maxChars, unknownShare, invent);
        const [first, ...rest] = group.slice(0, n - index);
        index += rest.length;
        yield first;
        yield* rest;
        continue;
      }
      let example: ReaderExample | undefined;
      while (example === undefined)
        example = drawExample(rng, split, family, maxChars, chunkKind, unknownShare, invent);
      yield example;
    }
  })();
}
