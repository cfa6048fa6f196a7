import { describe, expect, it } from 'vitest';
import { FAMILIES, Rng, TASK_TYPES, type TaskType } from '@fathom/contracts';
import {
  FRAMES,
  INVENTED_DISTRACTOR_KINDS,
  INVENTED_KINDS,
  QUESTIONS,
  SUB_QUESTIONS,
  inventedDistractor,
  inventedQuestion,
  inventedSentence,
} from './frames';
import { writtenFramePieces } from './test-helpers';
import { FILLER } from './vocab';

const SLOTS = { key: 'KEY', value: 'VALUE', other: 'OTHER', actor: 'ACTOR' };

describe.each(TASK_TYPES)('%s phrasings and frames', (type) => {
  const questions = QUESTIONS[type];
  const frames = FRAMES[type];

  it('has at least 12 question phrasings in two non-empty families with unique ids', () => {
    expect(questions.length).toBeGreaterThanOrEqual(12);
    for (const family of FAMILIES)
      expect(questions.filter((q) => q.family === family).length).toBeGreaterThanOrEqual(5);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
  });

  it('never uses a train phrasing in the heldout family (or the reverse)', () => {
    const render = (family: string) => questions.filter((q) => q.family === family).map((q) => q.render('KEY'));
    const train = render('train');
    expect(render('heldout').filter((q) => train.includes(q))).toEqual([]);
    // Not even the wording around the key: no heldout phrasing starts or ends like a train one.
    const heads = new Set(train.map((q) => q.split('KEY')[0]));
    const tails = new Set(train.map((q) => q.split('KEY')[1]));
    expect(render('heldout').filter((q) => heads.has(q.split('KEY')[0]) && tails.has(q.split('KEY')[1]))).toEqual([]);
  });

  it('has at least 15 frames, every kind in both families, no sentence shared between families', () => {
    expect(frames.length).toBeGreaterThanOrEqual(15);
    expect(new Set(frames.map((f) => f.id)).size).toBe(frames.length);
    for (const kind of new Set(frames.map((f) => f.kind)))
      for (const family of FAMILIES)
        expect(
          frames.some((f) => f.kind === kind && f.family === family),
          `${kind}/${family}`,
        ).toBe(true);
    const train = frames.filter((f) => f.family === 'train').map((f) => f.render(SLOTS));
    expect(frames.filter((f) => f.family === 'heldout' && train.includes(f.render(SLOTS))).map((f) => f.id)).toEqual(
      [],
    );
  });

  it('has frames that state the key and end as one sentence', () => {
    for (const frame of frames) expect(frame.render(SLOTS), frame.id).toMatch(/^(?=[A-Z$]).*KEY.*\.$/);
  });
});

describe('sub-question phrasings', () => {
  it('have both families for every relation, never shared', () => {
    for (const [relation, phrasings] of Object.entries(SUB_QUESTIONS)) {
      const train = phrasings.filter((p) => p.family === 'train').map((p) => p.render('KEY'));
      const heldout = phrasings.filter((p) => p.family === 'heldout').map((p) => p.render('KEY'));
      expect(train.length, relation).toBeGreaterThan(0);
      expect(heldout.length, relation).toBeGreaterThan(0);
      expect(heldout.filter((q) => train.includes(q))).toEqual([]);
    }
  });
});

describe('invented frames', () => {
  const filler = new Set(
    Object.values(FILLER)
      .flat()
      .flatMap((phrase) => phrase.toLowerCase().split(' ')),
  );
  const inventable = Object.entries(INVENTED_KINDS).flatMap(([type, kinds]) =>
    kinds!.map((kind) => [type as TaskType, kind] as const),
  );

  it.each(inventable)('ties %s %s sentences with filler words only, each time differently', (type, kind) => {
    const rng = new Rng(7);
    const sentences = Array.from({ length: 300 }, () => inventedSentence(rng, type, kind, SLOTS));
    for (const s of sentences) {
      expect(s.split('KEY')).toHaveLength(2);
      expect(s.split('VALUE')).toHaveLength(2);
      const rest = s.replace('KEY', ' ').replace(type === 'multi_needle' ? '$VALUE' : 'VALUE', ' ');
      const words = rest.toLowerCase().match(/[a-z]+/g) ?? [];
      expect(
        words.filter((w) => !filler.has(w) && !['the', 'according', 'with', 'as', 'for', 'by', 'to', 'at'].includes(w)),
        s,
      ).toEqual([]);
    }
    expect(new Set(sentences).size).toBeGreaterThan(250);
    // The value comes before the key in some sentences and after it in others.
    const before = sentences.filter((s) => s.indexOf('VALUE') < s.indexOf('KEY')).length;
    expect(before).toBeGreaterThan(60);
    expect(before).toBeLessThan(240);
  });

  it('has none for sentences whose meaning needs their wording', () => {
    expect(inventable).not.toContainEqual(['niah', 'negation']);
    expect(() => inventedSentence(new Rng(1), 'tracking', 'move', SLOTS)).toThrow(/no invented frame for tracking/);
    expect(() => inventedQuestion(new Rng(1), 'tracking', 'needle', 'KEY')).toThrow(/no invented question/);
  });

  it('asks about the key with an opening and filler words, nothing about what is asked', () => {
    const rng = new Rng(3);
    const questions = Array.from({ length: 200 }, () => inventedQuestion(rng, 'niah', 'needle', 'KEY'));
    const written = QUESTIONS.niah.map((q) => q.render('KEY'));
    for (const q of questions) {
      expect(q).toMatch(/^(What|Which|Who|Where|How|Tell me|Say) [a-z]+( [a-z]+)? the KEY\?$/);
      expect(written).not.toContain(q);
    }
    expect(new Set(questions).size).toBeGreaterThan(150);
    expect(inventedQuestion(new Rng(3), 'multi_hop', 'home', 'Vera Lund')).toMatch(/ Vera Lund\?$/);
  });
});

describe('invented distractors', () => {
  const kinds = Object.entries(INVENTED_DISTRACTOR_KINDS).flatMap(([type, of]) =>
    of!.map((kind) => [type as TaskType, kind] as const),
  );
  /** Each kind's cue: a word or phrase that takes the statement back, in every sentence of that kind. */
  const CUE: Record<string, RegExp> = {
    negation: /\b(never|not|denied|false)\b/i,
    hypothetical: /\b(would|might|could|will|imagined)\b/i,
    correction: /\b(error|wrongly|false|mistaken|mistakenly|wrong)\b/i,
    tense: /\b(formerly|used to|no longer|at one time|previously|until)\b/i,
  };
  const written = writtenFramePieces().map((piece) => piece.toLowerCase());

  it.each(kinds)('writes %s %s distractors with a cue, the key and the value, in no written wording', (type, kind) => {
    const rng = new Rng(11);
    const sentences = Array.from({ length: 300 }, () => inventedDistractor(rng, type, kind, SLOTS));
    for (const s of sentences) {
      expect(s.split('KEY')).toHaveLength(2);
      expect(s.split(type === 'multi_needle' ? '$VALUE' : 'VALUE')).toHaveLength(2);
      expect(s).toMatch(CUE[kind]);
      // Capitalised at the start only: after an opening time, the cue reads on in lower case.
      expect(s).toMatch(/^[A-Z$]/);
      expect(s).not.toMatch(/, (At|Not|It|If|Perhaps) /);
      expect(
        written.filter((piece) => s.toLowerCase().includes(piece)),
        s,
      ).toEqual([]);
    }
    expect(new Set(sentences).size).toBeGreaterThan(250);
  });

  it('has none for reported claims, near misses or tracking moves', () => {
    expect(kinds).not.toContainEqual(['niah', 'reported']);
    expect(() => inventedDistractor(new Rng(1), 'extractive', 'near_miss', SLOTS)).toThrow(/no invented distractor/);
    expect(() => inventedDistractor(new Rng(1), 'tracking', 'undone', SLOTS)).toThrow(/no invented distractor/);
  });
});
