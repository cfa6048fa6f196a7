import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SPLITS,
  TASK_TYPES,
  escapeRegExp,
  TaskMetaSchema,
  type Split,
  type Task,
  type TaskType,
} from '@fathom/contracts';
import {
  DEFAULT_VARIANT_RATES,
  FRAMES,
  generateTask,
  generateTasks,
  sentencesOf,
  structuralIssues,
  writeTasksJsonl,
} from '@fathom/tasks';

const dir = mkdtempSync(join(tmpdir(), 'fathom-tasks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EVEN_MIX = Object.fromEntries(TASK_TYPES.map((t) => [t, 1]));
const small = (split: Split, n: number, seed = 11): Task[] => [
  ...generateTasks({ split, n, seed, minTokens: 512, maxTokens: 1024, mix: EVEN_MIX }),
];
/** Longest filler or distractor sentence the generator writes is well under this many estimated tokens. */
const ONE_SENTENCE_TOKENS = 50;
const frameFamily = new Map(TASK_TYPES.flatMap((t) => FRAMES[t].map((f) => [f.id, f.family] as const)));

describe('determinism', () => {
  it('writes byte-identical files for the same arguments and seed, and different ones for another seed', async () => {
    const options = { split: 'heldout' as const, n: 40, seed: 5, minTokens: 512, maxTokens: 4096 };
    const [a, b, c] = ['a', 'b', 'new/folder/c'].map((name) => join(dir, `${name}.jsonl`)); // c's folder is made
    await writeTasksJsonl(a, generateTasks(options));
    await writeTasksJsonl(b, generateTasks(options));
    await writeTasksJsonl(c, generateTasks({ ...options, seed: 6 }));
    const bytesA = readFileSync(a);
    expect(bytesA.length).toBeGreaterThan(40 * 512 * 4);
    expect(bytesA.equals(readFileSync(b))).toBe(true);
    expect(bytesA.equals(readFileSync(c))).toBe(false);
  });

  it('generateTask(options, i) is the i-th task of generateTasks(options)', () => {
    const options = { split: 'heldout' as const, n: 12, seed: 3, minTokens: 512, maxTokens: 1024 };
    const all = [...generateTasks(options)];
    for (const i of [0, 5, 11]) expect(generateTask(options, i)).toEqual(all[i]);
  });
});

describe('structured ground truth', () => {
  const tasks = SPLITS.flatMap((s) => small(s, 240, 31));

  it('is always filled in, valid, and agrees with the text (the checks `fathom data validate` runs)', () => {
    for (const t of tasks) {
      expect(TaskMetaSchema.safeParse(t.meta).success, t.id).toBe(true);
      expect(structuralIssues(t), t.id).toEqual([]);
    }
  });

  it('keeps evidence in document order at the recorded needle positions', () => {
    for (const t of tasks) {
      const needles = t.needle_positions.map((p) => t.context.slice(p.start, p.end));
      for (const sub of t.meta!.subquestions) {
        const at = sub.evidence.map((e) => needles.indexOf(e));
        expect(
          at.every((i) => i >= 0),
          t.id,
        ).toBe(true);
        expect(
          [...at].sort((a, b) => a - b),
          t.id,
        ).toEqual(at);
      }
    }
  });

  it('has sub-questions per type: one fact, one per item, two hops, none for counting', () => {
    const expected: Record<TaskType, (t: Task) => number> = {
      niah: () => 1,
      extractive: () => 1,
      tracking: () => 1,
      multi_needle: (t) => t.meta!.keys.length,
      multi_hop: () => 2,
      counting: () => 0,
    };
    for (const t of tasks) expect(t.meta!.subquestions.length, t.id).toBe(expected[t.type](t));
    for (const t of tasks.filter((task) => task.type === 'multi_hop')) {
      const [owner, home] = t.meta!.subquestions;
      expect(t.meta!.keys).toEqual([t.meta!.key, owner.answer]);
      expect(home.question).toContain(owner.answer);
      expect(home.answer).toBe(t.answer);
    }
  });

  it('uses frames of the question family only', () => {
    for (const t of tasks)
      for (const id of t.meta!.frames) expect(frameFamily.get(id), `${t.id} ${id}`).toBe(t.meta!.phrasing.family);
  });

  it('draws answers from an open vocabulary', () => {
    for (const type of ['niah', 'extractive', 'tracking', 'multi_hop'] as const) {
      const answers = tasks.filter((t) => t.type === type).map((t) => t.answer);
      expect(new Set(answers).size / answers.length, type).toBeGreaterThan(0.95);
    }
  });
});

describe('families', () => {
  it('train and eval use train phrasings; heldout half train ("seen"), half heldout ("unseen") per type', () => {
    for (const split of ['train', 'eval'] as const)
      expect(new Set(small(split, 120, 8).map((t) => t.meta!.phrasing.family))).toEqual(new Set(['train']));
    const heldout = small('heldout', 240, 8);
    for (const type of TASK_TYPES) {
      const ofType = heldout.filter((t) => t.type === type);
      const unseen = ofType.filter((t) => t.meta!.phrasing.family === 'heldout').length;
      expect(Math.abs(unseen - ofType.length / 2), type).toBeLessThanOrEqual(0.5);
    }
  });
});

describe('splits', () => {
  const bySplit = Object.fromEntries(SPLITS.map((s) => [s, small(s, 240, 21)])) as Record<Split, Task[]>;
  const keysOf = (tasks: Task[]) => new Set(tasks.flatMap((t) => t.meta!.keys.map((k) => k.toLowerCase())));

  it('never share needle entities', () => {
    const keys = SPLITS.map((s) => keysOf(bySplit[s]));
    for (const k of keys) expect(k.size).toBeGreaterThan(200);
    for (let i = 0; i < keys.length; i++)
      for (let j = i + 1; j < keys.length; j++) expect([...keys[i]].filter((k) => keys[j].has(k))).toEqual([]);
  });

  it("never mention another split's entities anywhere in their contexts", () => {
    for (const split of SPLITS) {
      const foreign = SPLITS.filter((s) => s !== split).flatMap((s) => [...keysOf(bySplit[s])]);
      const leaks = bySplit[split].flatMap((t) => {
        const text = t.context.toLowerCase();
        return foreign
          .filter((k) => text.includes(k) && new RegExp(`(?<![a-z])${escapeRegExp(k)}(?![a-z])`).test(text))
          .map((k) => `${t.id}: ${k}`);
      });
      expect(leaks).toEqual([]);
    }
  });
});

describe('keys', () => {
  const tasks = small('train', 300, 71);

  it('never occur in filler: every sentence naming a key is a needle or a distractor frame', () => {
    for (const t of tasks) {
      const keys = t.meta!.keys.map((k) => k.toLowerCase());
      const naming = sentencesOf(t.context).filter((s) => keys.some((k) => s.toLowerCase().includes(k)));
      const inserted = t.needle_positions.length + (t.variants.length > 0 ? 1 : 0);
      expect(naming.length, t.id).toBeGreaterThanOrEqual(Math.min(inserted, 1));
      expect(
        structuralIssues(t).filter((i) => i.includes('is no')),
        t.id,
      ).toEqual([]);
    }
  });

  it('never contain one another within a task', () => {
    for (const t of tasks) {
      const keys = t.meta!.keys.map((k) => k.toLowerCase());
      for (const a of keys)
        expect(
          keys.filter((b) => b !== a && (b.includes(a) || a.includes(b))),
          t.id,
        ).toEqual([]);
    }
  });
});

describe('tracking', () => {
  const tasks = [
    ...generateTasks({ split: 'train', n: 300, seed: 81, minTokens: 512, maxTokens: 1024, mix: { tracking: 1 } }),
  ];

  it('records every sentence about the object as evidence, the final place among them', () => {
    for (const t of tasks) {
      const [sub] = t.meta!.subquestions;
      expect(sub.evidence.length).toBeGreaterThanOrEqual(3);
      expect(sub.evidence.every((e) => e.includes(t.meta!.key))).toBe(true);
      expect(sub.evidence.some((e) => e.endsWith(` ${t.answer}.`))).toBe(true);
    }
  });

  it('defeats "the last place mentioned" on a good share of tasks', () => {
    const lastMentionWrong = tasks.filter((t) => !t.meta!.subquestions[0].evidence.at(-1)!.includes(t.answer)).length;
    expect(lastMentionWrong / tasks.length).toBeGreaterThan(0.15);
    expect(lastMentionWrong / tasks.length).toBeLessThan(0.8);
  });
});

describe('distractor variants', () => {
  const tasks = [...generateTasks({ split: 'eval', n: 2400, seed: 51, minTokens: 512, maxTokens: 512, mix: EVEN_MIX })];

  it('occur at their default rates (within 0.08)', () => {
    for (const type of TASK_TYPES) {
      const ofType = tasks.filter((t) => t.type === type);
      expect(ofType.length).toBe(400);
      for (const [variant, rate] of Object.entries(DEFAULT_VARIANT_RATES[type])) {
        const seen = ofType.filter((t) => t.variants.includes(variant)).length / ofType.length;
        expect(Math.abs(seen - rate), `${type}.${variant}: ${seen}`).toBeLessThan(0.08);
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
        variantRates: { niah: { negation: 0.9, decoy_entity: 0, reported: 0.5 } },
      }),
    ];
    const rate = (v: string) => tuned.filter((t) => t.variants.includes(v)).length / tuned.length;
    expect(Math.abs(rate('negation') - 0.9)).toBeLessThan(0.07);
    expect(rate('decoy_entity')).toBe(0);
    expect(Math.abs(rate('reported') - 0.5)).toBeLessThan(0.1);
  });

  it('tags are honest: single-fact tasks have more sentences naming the key exactly when distracted', () => {
    for (const t of tasks.filter((task) => task.type === 'niah' || task.type === 'extractive')) {
      const key = t.meta!.key.toLowerCase();
      const mentions = sentencesOf(t.context).filter((s) => s.toLowerCase().includes(key)).length;
      const distracted = t.variants.some((v) => v !== 'decoy_entity');
      expect(mentions > 1, t.id).toBe(distracted || mentions > 1);
      if (!distracted && !t.variants.includes('decoy_entity')) expect(mentions, t.id).toBe(1);
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

  it('reach 200K tokens with needles at recorded positions, still consistent', () => {
    const tasks = [...generateTasks({ split: 'heldout', n: 3, seed: 63, minTokens: 200_000, maxTokens: 200_000 })];
    for (const t of tasks) {
      expect(t.context_tokens).toBeGreaterThanOrEqual(200_000);
      expect(t.context_tokens).toBeLessThanOrEqual(200_000 + ONE_SENTENCE_TOKENS);
      expect(structuralIssues(t)).toEqual([]);
      for (const p of t.needle_positions) {
        expect(t.context.slice(p.start, p.end)).toMatch(/^[A-Z].*\.$/);
        expect(Math.abs(p.depth - p.start / t.context.length)).toBeLessThan(1e-4);
      }
    }
  });

  it('put at least a quarter of the default heldout split above 64K tokens', () => {
    const tasks = [...generateTasks({ split: 'heldout', n: 12, seed: 64 })];
    expect(tasks.filter((t) => t.context_tokens > 65_536).length / tasks.length).toBeGreaterThanOrEqual(0.25);
  });

  it('place needles at depths spread over the whole document', () => {
    const depths = small('train', 300, 64).flatMap((t) => t.needle_positions.map((p) => p.depth));
    const quarters = [0, 1, 2, 3].map(
      (q) => depths.filter((d) => d >= q / 4 && d < (q + 1) / 4).length / depths.length,
    );
    for (const share of quarters) expect(share).toBeGreaterThan(0.15);
  });
});
