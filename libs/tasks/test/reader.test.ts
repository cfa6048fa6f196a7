import { describe, expect, it } from 'vitest';
import { TASK_TYPES, type Task } from '@fathom/contracts';
import {
  ORACLE_UNKNOWN,
  OTHER_ENTITY,
  OWNER_OF_QUESTION,
  QUESTIONS,
  SUB_QUESTIONS,
  generateReaderExamples,
  generateTasks,
  oracleRead,
  splitOf,
  type ReaderExample,
} from '@fathom/tasks';
import { INVENTED_DISTRACTOR_KINDS } from '../src/frames';
import { NIAH_DISTRACTORS } from '../src/task-types/niah';
import { writtenFramePieces } from '../src/test-helpers';

const EVEN_MIX = Object.fromEntries(TASK_TYPES.map((t) => [t, 1]));
const tasks = [
  ...generateTasks({ split: 'heldout', n: 240, seed: 5, minTokens: 2048, maxTokens: 4096, mix: EVEN_MIX }),
];

const WRITTEN_PIECES = writtenFramePieces();

/** The smallest slice of the context that holds every given sentence (they are needles, so they are in it). */
function around(task: Task, sentences: readonly string[]): string {
  const spans = sentences.map((s) => {
    const start = task.context.indexOf(s);
    return [start, start + s.length];
  });
  return task.context.slice(Math.min(...spans.map(([s]) => s)), Math.max(...spans.map(([, e]) => e)));
}

describe('oracleRead', () => {
  it('answers the task question from a chunk holding all the evidence, "unknown" from one without it', () => {
    for (const t of tasks.filter((task) => task.type !== 'counting')) {
      const evidence = t.meta!.subquestions.flatMap((s) => s.evidence);
      expect(oracleRead(t, t.question, around(t, evidence)), t.id).toBe(t.answer);
      expect(oracleRead(t, t.question, t.context), t.id).toBe(t.answer);
      const firstNeedle = t.needle_positions[0].start;
      expect(oracleRead(t, t.question, t.context.slice(0, firstNeedle)), t.id).toBe(ORACLE_UNKNOWN);
    }
  });

  it('answers each sub-question, in its recorded text or any phrasing, from a chunk with its evidence', () => {
    for (const t of tasks.filter((task) => task.type === 'multi_hop' || task.type === 'multi_needle')) {
      t.meta!.subquestions.forEach((sub, i) => {
        const chunk = around(t, sub.evidence);
        expect(oracleRead(t, sub.question, chunk), t.id).toBe(sub.answer);
        const relation =
          t.type === 'multi_needle' ? SUB_QUESTIONS.price : i === 0 ? SUB_QUESTIONS.owner : SUB_QUESTIONS.home;
        for (const p of relation)
          expect(oracleRead(t, `  ${p.render(t.meta!.keys[i]).toUpperCase()} `, chunk)).toBe(sub.answer);
      });
    }
  });

  it("answers a multi_hop's first hop asked as OWNER_OF_QUESTION before the task question, in any phrasing", () => {
    for (const t of tasks.filter((task) => task.type === 'multi_hop')) {
      const [owner, home] = t.meta!.subquestions;
      const chunk = around(t, owner.evidence);
      expect(oracleRead(t, OWNER_OF_QUESTION + t.question, chunk), t.id).toBe(owner.answer);
      for (const p of QUESTIONS.multi_hop)
        expect(oracleRead(t, OWNER_OF_QUESTION + p.render(t.meta!.key), chunk), t.id).toBe(owner.answer);
      expect(oracleRead(t, OWNER_OF_QUESTION + t.question, around(t, home.evidence)), t.id).toBe(ORACLE_UNKNOWN);
      expect(oracleRead(t, 'Who is the owner? What colour is the sky?', chunk)).toBe(ORACLE_UNKNOWN);
    }
  });

  it('does not answer a multi_hop question from the first hop alone, nor a question about something else', () => {
    for (const t of tasks.filter((task) => task.type === 'multi_hop')) {
      const [owner] = t.meta!.subquestions;
      expect(oracleRead(t, t.question, owner.evidence[0])).toBe(ORACLE_UNKNOWN);
      expect(oracleRead(t, 'What colour is the sky?', t.context)).toBe(ORACLE_UNKNOWN);
    }
  });

  it('accepts heldout-family phrasings of the task question', () => {
    const t = tasks.find((task) => task.type === 'niah')!;
    const chunk = around(t, t.meta!.subquestions[0].evidence);
    for (const p of QUESTIONS.niah) expect(oracleRead(t, p.render(t.meta!.key), chunk)).toBe(t.answer);
  });

  it('answers "unknown" for counting and for tasks without meta', () => {
    const counting = tasks.find((task) => task.type === 'counting')!;
    expect(oracleRead(counting, counting.question, counting.context)).toBe(ORACLE_UNKNOWN);
    const niah = tasks.find((task) => task.type === 'niah')!;
    expect(oracleRead({ ...niah, meta: undefined }, niah.question, niah.context)).toBe(ORACLE_UNKNOWN);
  });
});

describe('generateReaderExamples', () => {
  const examples = [...generateReaderExamples({ split: 'heldout', n: 3000, seed: 2, maxChunkChars: 800 })];

  it('is deterministic and lazy', () => {
    const again = generateReaderExamples({ split: 'heldout', n: 3000, seed: 2, maxChunkChars: 800 });
    expect(again.next().value).toEqual(examples[0]);
    expect([...generateReaderExamples({ split: 'heldout', n: 50, seed: 2, maxChunkChars: 800 })]).toEqual(
      examples.slice(0, 50),
    );
    expect([...generateReaderExamples({ split: 'heldout', n: 5, seed: 3, maxChunkChars: 800 })]).not.toEqual(
      examples.slice(0, 5),
    );
  });

  it("asks about half of multi_hop's first hops as OWNER_OF_QUESTION before a phrasing of the task question", () => {
    const firstHop = /^(Who owns|Who is the owner|To whom|Whose property)/;
    const owners = examples.filter((e) => e.type === 'multi_hop' && firstHop.test(e.question));
    const keyless = owners.filter((e) => e.question.startsWith(OWNER_OF_QUESTION));
    expect(keyless.length).toBeGreaterThan(0.3 * owners.length);
    expect(keyless.length).toBeLessThan(0.7 * owners.length);
  });

  it('keeps chunks within the limit, holding the answer unless the answer is "unknown" (about 10%)', () => {
    for (const e of examples) {
      expect(e.chunk.length).toBeLessThanOrEqual(800);
      expect(e.answer === ORACLE_UNKNOWN || e.chunk.includes(e.answer.replace(/\B(?=(\d{3})+(?!\d))/g, ','))).toBe(
        true,
      );
    }
    const unknown = examples.filter((e) => e.answer === ORACLE_UNKNOWN).length / examples.length;
    expect(Math.abs(unknown - 0.1)).toBeLessThan(0.025);
  });

  it('with evidenceShare 1, makes the chunk the evidence alone: the answer and at most a few sentences', () => {
    const plain = [
      ...generateReaderExamples({ split: 'heldout', n: 1000, seed: 2, maxChunkChars: 800, evidenceShare: 1 }),
    ];
    const withCommas = (answer: string) => answer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    for (const e of plain) {
      if (e.answer !== ORACLE_UNKNOWN) expect(e.chunk.includes(withCommas(e.answer)), e.chunk).toBe(true);
      else expect(e.chunk.split(/(?<=\.) /)).toHaveLength(1);
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
    expect(median(plain.map((e) => e.chunk.length))).toBeLessThan(median(examples.map((e) => e.chunk.length)) / 4);
    expect(Math.abs(plain.filter((e) => e.answer === ORACLE_UNKNOWN).length / plain.length - 0.1)).toBeLessThan(0.03);
  });

  it('with evidenceShare 1, an "unknown" chunk is one distractor or one of several evidence sentences', () => {
    const unknown = [
      ...generateReaderExamples({ split: 'train', n: 2000, seed: 3, evidenceShare: 1, unknownShare: 0.5 }),
    ].filter((e) => e.answer === ORACLE_UNKNOWN);
    const partial = unknown.filter((e) => e.distractors.length === 0);
    // A single move of an object whose final place takes all its moves: tracking's evidence is its events.
    expect(partial.length).toBeGreaterThan(unknown.length / 20);
    for (const e of partial) expect(e.type).toBe('tracking');
    for (const e of unknown.filter((x) => x.distractors.length > 0))
      expect(e.distractors).toEqual([expect.objectContaining({ start: 0, end: e.chunk.length })]);
  });

  it('mixes evidence-only chunks and copy drills at their shares, leaving the other examples as they were', () => {
    const mixed = [
      ...generateReaderExamples({
        split: 'heldout',
        n: 3000,
        seed: 2,
        maxChunkChars: 800,
        evidenceShare: 0.5,
        copyShare: 0.25,
      }),
    ];
    const drills = mixed.filter((e) => e.type === 'copy');
    expect(Math.abs(drills.length / 3000 - 0.25)).toBeLessThan(0.025);
    for (const d of drills) {
      expect(d.answer).toBe(d.chunk);
      expect(d.chunk).toMatch(/^[A-Za-z0-9-]+( [A-Za-z0-9-]+){0,3}$/);
      expect(d.family).toBe('train');
    }
    // Open-vocabulary: a one-number drill may repeat, little else does.
    expect(new Set(drills.map((d) => d.chunk)).size / drills.length).toBeGreaterThan(0.97);
    // Every example that is neither a drill nor evidence-only is the one the plain curriculum draws at its index.
    // The rest are evidence-only versions of the same draws: about half, and far shorter.
    const reading = mixed.map((e, i) => [e, examples[i]] as const).filter(([e]) => e.type !== 'copy');
    const kept = reading.filter(([e, plain]) => e.chunk === plain.chunk).length;
    const shortened = reading.filter(([e, plain]) => e.chunk !== plain.chunk).map(([e]) => e.chunk.length);
    expect(Math.abs(kept / reading.length - 0.5)).toBeLessThan(0.03);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
    expect(median(shortened)).toBeLessThan(median(examples.map((e) => e.chunk.length)) / 4);
    expect(() => [...generateReaderExamples({ split: 'train', n: 1, copyShare: 1.5 })]).toThrow(/copyShare/);
  });

  it('with keyShare 1, makes the chunk the evidence among every distractor of its task, with no filler', () => {
    const keyed = [...generateReaderExamples({ split: 'heldout', n: 1000, seed: 2, maxChunkChars: 1000, keyShare: 1 })];
    const full = [...generateReaderExamples({ split: 'heldout', n: 1000, seed: 2, maxChunkChars: 1000 })];
    // Filler never names the question's key; a key chunk's sentences mostly do (multi_needle's other items and
    // multi_hop's other people are the rest): about 0.72 of them, against 0.34 with filler.
    const sentences = (e: ReaderExample) => e.chunk.split(/(?<=[.!?]) /);
    const keyWords = (e: ReaderExample) =>
      e.question
        .toLowerCase()
        .match(/[a-z0-9]+/g)!
        .filter((w) => w.length > 3);
    const aboutKey = (e: ReaderExample) =>
      sentences(e).filter((s) => keyWords(e).some((w) => s.toLowerCase().includes(w))).length / sentences(e).length;
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    expect(mean(keyed.map(aboutKey))).toBeGreaterThan(0.65);
    expect(mean(full.map(aboutKey))).toBeLessThan(0.4);
    for (const e of keyed) expect(e.chunk.length).toBeLessThanOrEqual(1000);
    expect(mean(keyed.map((e) => sentences(e).length))).toBeGreaterThan(3);
    expect(Math.abs(keyed.filter((e) => e.answer === ORACLE_UNKNOWN).length / keyed.length - 0.1)).toBeLessThan(0.03);
    expect(() => [...generateReaderExamples({ split: 'train', n: 1, keyShare: -0.1 })]).toThrow(/keyShare/);
  });

  it('labels every distractor sentence of a key chunk with its frame kind, or other_entity, and its span', () => {
    const keyed = [...generateReaderExamples({ split: 'heldout', n: 600, seed: 4, maxChunkChars: 1000, keyShare: 1 })];
    const sentences = (e: ReaderExample) => e.chunk.split(/(?<=[.!?]) /);
    for (const e of keyed) {
      // A key chunk is the evidence and the distractors; an "unknown" one lacks the evidence.
      const evidence = sentences(e).length - e.distractors.length;
      if (e.answer === ORACLE_UNKNOWN) expect(evidence, e.chunk).toBe(0);
      else expect(evidence, e.chunk).toBeGreaterThanOrEqual(1);
      const spans = e.distractors.map((d) => e.chunk.slice(d.start, d.end));
      for (const span of spans) expect(sentences(e), e.chunk).toContain(span);
      // A niah distractor gives another code (multi_hop's other sentences may name the owner, so not there).
      if (e.type === 'niah' && e.answer !== ORACLE_UNKNOWN)
        for (const span of spans) expect(span).not.toContain(e.answer);
    }
    const niah = new Set(keyed.filter((e) => e.type === 'niah').flatMap((e) => e.distractors.map((d) => d.kind)));
    expect(niah).toEqual(new Set([...NIAH_DISTRACTORS, OTHER_ENTITY]));
    const full = [...generateReaderExamples({ split: 'heldout', n: 300, seed: 4 })];
    for (const e of full) {
      expect(e.distractors.length).toBeGreaterThanOrEqual(e.answer === ORACLE_UNKNOWN ? 0 : 1);
      for (const d of e.distractors) expect(e.chunk[d.end] ?? ' ').toBe(' ');
    }
    const drills = [...generateReaderExamples({ split: 'train', n: 20, seed: 4, copyShare: 1 })];
    for (const e of drills) expect(e.distractors).toEqual([]);
  });

  it('with unknownShare, leaves that share of chunks without the evidence, the rest as they were', () => {
    const base = [...generateReaderExamples({ split: 'heldout', n: 1000, seed: 6, keyShare: 0.5 })];
    const more = [...generateReaderExamples({ split: 'heldout', n: 1000, seed: 6, keyShare: 0.5, unknownShare: 0.4 })];
    const unknown = more.filter((e) => e.answer === ORACLE_UNKNOWN);
    expect(Math.abs(unknown.length / more.length - 0.4)).toBeLessThan(0.04);
    for (const e of unknown) expect(e.distractors.length, e.chunk).toBeGreaterThan(0);
    more.forEach((e, i) => {
      if (e.answer !== ORACLE_UNKNOWN) expect(e).toEqual(base[i]);
    });
    expect(() => [...generateReaderExamples({ split: 'train', n: 1, unknownShare: 2 })]).toThrow(/unknownShare/);
  });

  it('with inventedShare, writes that share of key-to-value sentences with invented frames', () => {
    const options = { split: 'train', n: 1000, seed: 8, evidenceShare: 1, unknownShare: 0 } as const;
    const base = [...generateReaderExamples(options)];
    const invented = [...generateReaderExamples({ ...options, inventedShare: 0.5 })];
    // Tracking moves keep their written frames (their meaning is in the wording).
    const changed = invented.filter((e, i) => e.type !== 'tracking' && e.chunk !== base[i].chunk);
    const inventable = invented.filter((e) => e.type !== 'tracking').length;
    expect(Math.abs(changed.length / inventable - 0.5)).toBeLessThan(0.06);
    // Evidence-only and stated: the chunk is the one evidence sentence, with the value and no written frame's words.
    for (const e of changed) {
      expect(e.chunk).toContain(e.answer);
      expect(
        WRITTEN_PIECES.filter((piece) => e.chunk.includes(piece)),
        e.chunk,
      ).toEqual([]);
    }
    expect(() => [...generateReaderExamples({ ...options, inventedShare: -1 })]).toThrow(/inventedShare/);
  });

  it('with inventedDistractorShare, writes that share of meaning distractors with invented frames', () => {
    // Evidence-only chunks without the fact: the chunk is one distractor sentence, answered "unknown".
    const options = { split: 'train', n: 1500, seed: 10, evidenceShare: 1, unknownShare: 1 } as const;
    const inWrittenWording = (e: ReaderExample) => WRITTEN_PIECES.some((piece) => e.chunk.includes(piece));
    const eligible = (examples: ReaderExample[]) =>
      examples.filter(
        (e) =>
          e.type !== 'copy' &&
          e.type !== 'recall' &&
          e.distractors.length === 1 &&
          INVENTED_DISTRACTOR_KINDS[e.type]?.includes(e.distractors[0].kind),
      );
    const base = eligible([...generateReaderExamples(options)]);
    const mixed = eligible([...generateReaderExamples({ ...options, inventedDistractorShare: 0.5 })]);
    expect(base.length).toBeGreaterThan(300);
    expect(base.filter((e) => !inWrittenWording(e)).length / base.length).toBeLessThan(0.05);
    const invented = mixed.filter((e) => !inWrittenWording(e));
    expect(Math.abs(invented.length / mixed.length - 0.5)).toBeLessThan(0.07);
    for (const e of invented) expect(e.answer).toBe(ORACLE_UNKNOWN);
    expect(() => [...generateReaderExamples({ ...options, inventedDistractorShare: 1.5 })]).toThrow(
      /inventedDistractorShare/,
    );
  });

  it('with inventedQuestionShare, invents that share of questions (tracking aside), the rest as they were', () => {
    const options = { split: 'train', n: 1000, seed: 9, evidenceShare: 1, unknownShare: 0 } as const;
    const base = [...generateReaderExamples(options)];
    const asked = [...generateReaderExamples({ ...options, inventedQuestionShare: 0.5 })];
    // Tracking questions stay written; a draw retried after a drawn task did not fit can land on another task.
    const invented = asked.filter((e, i) => e.type !== 'tracking' && e.question !== base[i].question);
    const share = invented.length / asked.filter((e) => e.type !== 'tracking').length;
    expect(Math.abs(share - 0.5)).toBeLessThan(0.06);
    for (const e of invented) {
      expect(e.question).toMatch(/^(What|Which|Who|Where|How|Tell me|Say) [a-z]+( [a-z]+)? .+\?$/);
      expect(e.chunk).toContain(e.answer);
    }
    // The others are the plain curriculum's draws, apart from those retries.
    const kept = asked.filter((e, i) => !invented.includes(e) && JSON.stringify(e) === JSON.stringify(base[i]));
    expect(kept.length / (asked.length - invented.length)).toBeGreaterThan(0.9);
  });

  it('with unownedShare, asks that share of the other types for an owner, answered "unknown"; multi_hop as it was', () => {
    const options = { split: 'train', n: 1000, seed: 9, unknownShare: 0 } as const;
    const base = [...generateReaderExamples(options)];
    const asked = [...generateReaderExamples({ ...options, unownedShare: 0.5 })];
    const unowned = asked.filter((e) => e.question.startsWith(OWNER_OF_QUESTION) && e.type !== 'multi_hop');
    const share = unowned.length / asked.filter((e) => e.type !== 'multi_hop').length;
    expect(Math.abs(share - 0.5)).toBeLessThan(0.06);
    for (const e of unowned) expect(e.answer).toBe(ORACLE_UNKNOWN);
    // The chunk is drawn as before: only the question and the answer change.
    const same = (a: ReaderExample, b: ReaderExample) => a.chunk === b.chunk && a.type === b.type;
    expect(asked.filter((e, i) => same(e, base[i])).length).toBe(asked.length);
    expect(asked.filter((e, i) => !unowned.includes(e) && JSON.stringify(e) !== JSON.stringify(base[i]))).toEqual([]);
  });

  it('with sharedShare 1, asks 2-4 questions about different tasks over each chunk, each read from its own evidence', () => {
    const shared = [
      ...generateReaderExamples({ split: 'heldout', n: 1000, seed: 11, maxChunkChars: 700, sharedShare: 1 }),
    ];
    expect(shared).toHaveLength(1000);
    const groups: ReaderExample[][] = [];
    for (const e of shared)
      if (groups.length > 0 && groups.at(-1)![0].chunk === e.chunk) groups.at(-1)!.push(e);
      else groups.push([e]);
    const sizes = groups.slice(0, -1).map((g) => g.length);
    expect(new Set(sizes)).toEqual(new Set([2, 3, 4]));
    const sentences = (e: ReaderExample) => e.chunk.split(/(?<=[.!?]) /);
    const withCommas = (answer: string) => answer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    for (const group of groups) {
      expect(new Set(group.map((e) => e.question)).size, group[0].chunk).toBe(group.length);
      expect(new Set(group.map((e) => e.family)).size).toBe(1);
      const own = group.map((e) => {
        const labelled = new Set(e.distractors.map((d) => e.chunk.slice(d.start, d.end)));
        return sentences(e).filter((s) => !labelled.has(s));
      });
      group.forEach((e, m) => {
        expect(e.chunk.length).toBeLessThanOrEqual(700);
        // No filler: every sentence is this question's evidence or labelled, and its evidence states the answer.
        if (e.answer === ORACLE_UNKNOWN) expect(own[m]).toEqual([]);
        else
          expect(
            own[m].some((s) => s.includes(withCommas(e.answer))),
            e.chunk,
          ).toBe(true);
        // Each other question's evidence is labelled other_entity here.
        const kinds = new Map(e.distractors.map((d) => [e.chunk.slice(d.start, d.end), d.kind]));
        own.forEach((sentencesOf, k) => {
          if (k !== m) for (const s of sentencesOf) expect(kinds.get(s)).toBe(OTHER_ENTITY);
        });
      });
    }
    expect(shared.filter((e) => e.answer === ORACLE_UNKNOWN).length / shared.length).toBeLessThan(0.15);
  });

  it('with recallShare, makes that share recall drills: one frame, nonsense keys, only the key tells the code', () => {
    const options = { split: 'heldout', n: 2000, seed: 12, maxChunkChars: 800 } as const;
    const plain = [...generateReaderExamples(options)];
    const mixed = [...generateReaderExamples({ ...options, recallShare: 0.4 })];
    const drills = mixed.filter((e) => e.type === 'recall');
    expect(Math.abs(drills.length / mixed.length - 0.4)).toBeLessThan(0.04);
    mixed.forEach((e, i) => {
      if (e.type !== 'recall') expect(e).toEqual(plain[i]);
    });
    for (const d of drills) {
      const facts = [...d.chunk.matchAll(/The code of the ([a-z]+ [a-z]+) is ([A-Z]{1,2}\d-[A-Z0-9]{3})\./g)];
      expect(facts.map((f) => f[0]).join(' '), d.chunk).toBe(d.chunk);
      expect(facts.length).toBeGreaterThanOrEqual(3);
      expect(facts.length).toBeLessThanOrEqual(7);
      const key = /^What is the code of the ([a-z]+ [a-z]+)\?$/.exec(d.question)![1];
      expect(facts.filter((f) => f[1] === key).map((f) => f[2])).toEqual([d.answer]);
      expect(new Set(facts.map((f) => f[1])).size).toBe(facts.length);
      expect(d.distractors).toHaveLength(facts.length - 1);
      for (const x of d.distractors) expect(d.chunk.slice(x.start, x.end)).not.toContain(d.answer);
    }
    // Most keys share their first word with another key of the chunk.
    const shared = drills.map((d) => {
      const firsts = [...d.chunk.matchAll(/the ([a-z]+) [a-z]+ is/g)].map((f) => f[1]);
      return firsts.filter((w) => firsts.indexOf(w) !== firsts.lastIndexOf(w)).length / firsts.length;
    });
    expect(shared.reduce((a, b) => a + b, 0) / shared.length).toBeGreaterThan(0.5);
    expect(() => [...generateReaderExamples({ ...options, recallShare: -0.5 })]).toThrow(/recallShare/);
  });

  it('with sharedShare 0, draws the plain curriculum; at 0.3, groups among single examples', () => {
    const options = { split: 'heldout', n: 400, seed: 2, maxChunkChars: 800 } as const;
    expect([...generateReaderExamples({ ...options, sharedShare: 0 })]).toEqual(examples.slice(0, 400));
    const mixed = [...generateReaderExamples({ ...options, sharedShare: 0.3 })];
    const inGroups = mixed.filter((e, i) => mixed[i - 1]?.chunk === e.chunk || mixed[i + 1]?.chunk === e.chunk).length;
    // A draw starts a group with chance 0.3 and a group holds three examples on average: about 56% of examples.
    expect(Math.abs(inGroups / mixed.length - 0.56)).toBeLessThan(0.08);
    expect(() => [...generateReaderExamples({ ...options, sharedShare: 1.2 })]).toThrow(/sharedShare/);
  });

  it('covers every reader type, both families on heldout, distractors in the chunk', () => {
    expect(new Set(examples.map((e) => e.type))).toEqual(
      new Set(['niah', 'extractive', 'multi_needle', 'tracking', 'multi_hop']),
    );
    const heldout = examples.filter((e) => e.family === 'heldout').length / examples.length;
    expect(Math.abs(heldout - 0.5)).toBeLessThan(0.01);
    const train = [...generateReaderExamples({ split: 'train', n: 200, seed: 2 })];
    expect(new Set(train.map((e) => e.family))).toEqual(new Set(['train']));
    // A distractor in every chunk: more than one sentence names a generated entity or value.
    const withValues = examples.filter((e) => (e.chunk.match(/\b[A-Z][a-z]+[a-z]\b|\$?\d/g) ?? []).length > 1);
    expect(withValues.length / examples.length).toBeGreaterThan(0.95);
  });

  it('draws entities from the split only', () => {
    const train = [...generateReaderExamples({ split: 'train', n: 300, seed: 4 })];
    const answers = train.filter((e) => e.answer !== ORACLE_UNKNOWN && !/^[\d,]+$/.test(e.answer));
    expect(answers.length).toBeGreaterThan(150);
    expect(answers.filter((e) => splitOf(e.answer) !== 'train')).toEqual([]);
  });

  it('makes 20,000 examples cheaply', () => {
    const started = performance.now();
    let count = 0;
    for (const e of generateReaderExamples({ split: 'train', n: 20_000, seed: 9 })) count += e.chunk.length > 0 ? 1 : 0;
    expect(count).toBe(20_000);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
