import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SPLITS, TASK_TYPES, type Split, type Task, type TaskType } from '@fathom/contracts';
import { generateTask, generateTasks, solveTask, writeTasksJsonl } from '@fathom/tasks';
import { independentSolve } from './independent-solver';
import { naiveCounting, naiveExtractive, naiveMultiNeedle, naiveNiah } from './naive';

const dir = mkdtempSync(join(tmpdir(), 'fathom-tasks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVEN_MIX = { niah: 1, extractive: 1, multi_needle: 1, counting: 1 };
const small = (split: Split, n: number, seed = 11): Task[] => [
  ...generateTasks({ split, n, seed, minTokens: 512, maxTokens: 1024, mix: EVEN_MIX }),
];

/** Longest filler or distractor sentence the generator writes is well under this many estimated tokens. */
const ONE_SENTENCE_TOKENS = 50;

function accepted(task: Task, answer: string | undefined): boolean {
  return answer !== undefined && [task.answer, ...task.aliases].some((a) => a.toLowerCase() === answer.toLowerCase());
}

/** The needle keys a question asks about, read from its text. */
function questionKeys(question: string): string[] {
  let m = /^What colour is the (.+)\?$/.exec(question);
  if (m) return [m[1]];
  m = /^In which city was the \d+ (\S+) \S+ signed\?$/.exec(question);
  if (m) return [m[1]];
  m = /^What is the total price, in dollars, of (.+)\?$/.exec(question);
  if (m) return m[1].split(/, | and /).map((p) => p.replace(/^the /, ''));
  m = /^How many times does the word "([^"]+)"/.exec(question);
  if (m) return [m[1]];
  throw new Error(`unknown question form: ${question}`);
}

describe('determinism', () => {
  it('writes byte-identical files for the same arguments and seed, and different ones for another seed', async () => {
    const options = { split: 'train' as const, n: 40, seed: 5, minTokens: 512, maxTokens: 4096 };
    const [a, b, c] = ['a', 'b', 'c'].map((name) => join(dir, `${name}.jsonl`));
    await writeTasksJsonl(a, generateTasks(options));
    await writeTasksJsonl(b, generateTasks(options));
    await writeTasksJsonl(c, generateTasks({ ...options, seed: 6 }));
    const bytesA = readFileSync(a);
    expect(bytesA.length).toBeGreaterThan(40 * 512 * 4);
    expect(bytesA.equals(readFileSync(b))).toBe(true);
    expect(bytesA.equals(readFileSync(c))).toBe(false);
  });

  it('generateTask(options, i) is the i-th task of generateTasks(options)', () => {
    const options = { split: 'eval' as const, n: 12, seed: 3, minTokens: 512, maxTokens: 1024 };
    const all = [...generateTasks(options)];
    for (const i of [0, 5, 11]) expect(generateTask(options, i)).toEqual(all[i]);
  });
});

describe('splits', () => {
  const bySplit = Object.fromEntries(SPLITS.map((s) => [s, small(s, 240, 21)])) as Record<Split, Task[]>;
  const keysOf = (tasks: Task[]) => new Set(tasks.flatMap((t) => questionKeys(t.question)));

  it('never share needle keys', () => {
    const keys = SPLITS.map((s) => keysOf(bySplit[s]));
    for (const k of keys) expect(k.size).toBeGreaterThan(20);
    for (let i = 0; i < keys.length; i++)
      for (let j = i + 1; j < keys.length; j++) expect([...keys[i]].filter((k) => keys[j].has(k))).toEqual([]);
  });

  it("never mention another split's keys anywhere in their contexts", () => {
    for (const split of SPLITS) {
      const foreign = SPLITS.filter((s) => s !== split).flatMap((s) => [...keysOf(bySplit[s])]);
      const pattern = new RegExp(`\\b(${foreign.join('|')})\\b`, 'i');
      const leaks = bySplit[split]
        .filter((t) => pattern.test(t.context))
        .map((t) => `${t.id}: ${pattern.exec(t.context)![0]}`);
      expect(leaks).toEqual([]);
    }
  });
});

describe('gold answers', () => {
  const tasks = SPLITS.flatMap((s) => small(s, 200, 31));

  it('are re-derived from question and context by the independent solver', () => {
    const wrong = tasks.filter((t) => !accepted(t, independentSolve(t.question, t.context)));
    expect(wrong.map((t) => t.id)).toEqual([]);
  });

  it('are re-derived by the library solver that `fathom data validate` uses', () => {
    const wrong = tasks.filter((t) => {
      const r = solveTask(t.question, t.context);
      return r.status !== 'solved' || r.type !== t.type || r.answer !== t.answer;
    });
    expect(wrong.map((t) => t.id)).toEqual([]);
  });

  it('come with aliases: thousands separators and dollar signs for prices, number words for counts', () => {
    const price = tasks.find((t) => t.type === 'multi_needle' && Number(t.answer) >= 1000)!;
    const grouped = Number(price.answer).toLocaleString('en-US');
    expect(price.aliases).toEqual(expect.arrayContaining([grouped, `$${grouped}`, `${price.answer} dollars`]));
    const count = tasks.find((t) => t.type === 'counting' && t.answer === '3');
    expect(count?.aliases).toContain('three');
  });
});

describe('naive strategies', () => {
  const tasks = small('train', 800, 41);
  /** Variants that leave the type's naive strategy right (first-mention niah reads paraphrases fine). */
  const HARMLESS_TO_NAIVE: Record<TaskType, string[]> = {
    niah: ['paraphrase'],
    extractive: [],
    multi_needle: [],
    counting: [],
  };
  const NAIVE: Record<TaskType, (q: string, c: string) => string | undefined> = {
    niah: naiveNiah,
    extractive: naiveExtractive,
    multi_needle: naiveMultiNeedle,
    counting: naiveCounting,
  };

  it.each(TASK_TYPES)('%s: the naive strategy is right only part of the time, the careful one always', (type) => {
    const ofType = tasks.filter((t) => t.type === type);
    expect(ofType.length).toBeGreaterThan(150);
    const naive = ofType.filter((t) => accepted(t, NAIVE[type](t.question, t.context))).length / ofType.length;
    const careful = ofType.filter((t) => accepted(t, independentSolve(t.question, t.context))).length / ofType.length;
    expect(naive).toBeGreaterThan(0.2);
    expect(naive).toBeLessThan(0.9);
    expect(careful).toBe(1);
    // The naive strategy's failures come from the variants: on tasks without any that defeat it, it is right.
    const undefeated = ofType.filter((t) => t.variants.every((v) => HARMLESS_TO_NAIVE[type].includes(v)));
    expect(undefeated.length).toBeGreaterThan(20);
    expect(undefeated.filter((t) => !accepted(t, NAIVE[type](t.question, t.context))).map((t) => t.id)).toEqual([]);
  });
});

describe('distractor variants', () => {
  const tasks = small('eval', 800, 51);

  it('occur at their default rates (within 0.1)', () => {
    const defaults: Record<TaskType, Record<string, number>> = {
      niah: { near_miss: 0.5, paraphrase: 0.3, decoy_entity: 0.4 },
      extractive: { near_miss: 0.5, paraphrase: 0.3, decoy_entity: 0.4 },
      multi_needle: { near_miss: 0.3, paraphrase: 0.3, decoy_entity: 0.3 },
      counting: { plural_trap: 0.3, compound_trap: 0.3, case_trap: 0.3 },
    };
    for (const type of TASK_TYPES) {
      const ofType = tasks.filter((t) => t.type === type);
      for (const [variant, rate] of Object.entries(defaults[type])) {
        const seen = ofType.filter((t) => t.variants.includes(variant)).length / ofType.length;
        expect(Math.abs(seen - rate), `${type}.${variant}: ${seen}`).toBeLessThan(0.1);
      }
    }
  });

  it('follow configured rates', () => {
    const tuned = [
      ...generateTasks({
        split: 'train',
        n: 300,
        seed: 2,
        minTokens: 512,
        maxTokens: 512,
        mix: { niah: 1 },
        variantRates: { niah: { near_miss: 0.9, decoy_entity: 0, paraphrase: 0.5 } },
      }),
    ];
    const rate = (v: string) => tuned.filter((t) => t.variants.includes(v)).length / tuned.length;
    expect(Math.abs(rate('near_miss') - 0.9)).toBeLessThan(0.07);
    expect(rate('decoy_entity')).toBe(0);
    expect(Math.abs(rate('paraphrase') - 0.5)).toBeLessThan(0.1);
  });

  it('tags are honest: distractor tags exactly when more sentences mention a key than there are needles', () => {
    for (const t of tasks.filter((task) => task.type !== 'counting')) {
      const keys = questionKeys(t.question);
      const mentions = t.context
        .split(/(?<=\.)\s+/)
        .filter((s) => keys.some((k) => s.toLowerCase().includes(k.toLowerCase()))).length;
      const distracted = t.variants.includes('near_miss') || t.variants.includes('decoy_entity');
      expect(mentions > t.needle_positions.length, t.id).toBe(distracted);
    }
  });

  it('counting traps are present in the text exactly when tagged', () => {
    for (const t of tasks.filter((task) => task.type === 'counting')) {
      const word = questionKeys(t.question)[0];
      const tokens = t.context.split(/[^A-Za-z]+/);
      expect(tokens.includes(`${word}s`), t.id).toBe(t.variants.includes('plural_trap'));
      expect(
        tokens.some((w) => w.toLowerCase().includes(word) && w.toLowerCase() !== word && w !== `${word}s`),
        t.id,
      ).toBe(t.variants.includes('compound_trap'));
      expect(
        tokens.some((w) => w !== word && w.toLowerCase() === word),
        t.id,
      ).toBe(t.variants.includes('case_trap'));
    }
  });
});

describe('context lengths', () => {
  it('stay within the requested bounds (at most one sentence over the maximum)', () => {
    const tasks = [...generateTasks({ split: 'train', n: 200, seed: 61, minTokens: 600, maxTokens: 3000 })];
    for (const t of tasks) {
      expect(t.context_tokens).toBe(Math.ceil(t.context.length / 4));
      expect(t.context_tokens).toBeGreaterThanOrEqual(600);
      expect(t.context_tokens).toBeLessThanOrEqual(3000 + ONE_SENTENCE_TOKENS);
    }
  });

  it('are log-uniform by default: about half fall below the geometric mean of the bounds', () => {
    const tasks = [...generateTasks({ split: 'train', n: 400, seed: 62, minTokens: 512, maxTokens: 8192 })];
    const below = tasks.filter((t) => t.context_tokens < 2048).length / tasks.length;
    expect(below).toBeGreaterThan(0.4);
    expect(below).toBeLessThan(0.6);
  });

  it('reach 200K tokens with needles at recorded positions, still solvable', () => {
    const tasks = [...generateTasks({ split: 'heldout', n: 3, seed: 63, minTokens: 200_000, maxTokens: 200_000 })];
    for (const t of tasks) {
      expect(t.context_tokens).toBeGreaterThanOrEqual(200_000);
      expect(t.context_tokens).toBeLessThanOrEqual(200_000 + ONE_SENTENCE_TOKENS);
      expect(accepted(t, independentSolve(t.question, t.context))).toBe(true);
      for (const p of t.needle_positions) {
        expect(t.context.slice(p.start, p.end)).toMatch(/^[A-Z].*\.$/);
        expect(Math.abs(p.depth - p.start / t.context.length)).toBeLessThan(1e-4);
      }
    }
  });

  it('place needles at depths spread over the whole document', () => {
    const depths = small('train', 300, 64).flatMap((t) => t.needle_positions.map((p) => p.depth));
    const quarters = [0, 1, 2, 3].map(
      (q) => depths.filter((d) => d >= q / 4 && d < (q + 1) / 4).length / depths.length,
    );
    for (const share of quarters) expect(share).toBeGreaterThan(0.15);
  });
});
