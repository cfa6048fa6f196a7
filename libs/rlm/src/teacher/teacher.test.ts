import { SftExampleSchema, type SftExample, type Task } from '@fathom/contracts';
import { SandboxPool } from '@fathom/sandbox';
import { generateTasks } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflightPromptShapes, PromptDriftError } from '../preflight';
import { renderPrompt, type PromptStyle } from '../prompt';
import { buildSftExamples, renderSftExample, renderSftSubcall } from './build';
import type { SftSkip } from './episode';
import { DEFAULT_TEACHER_MIX } from './mix';
import { SftStatsAccumulator, type SftStats } from './stats';
import { answerSubcallAsTeacher } from './subcall';
import { STRATEGIES_BY_TYPE, TEACHER_STRATEGIES } from './strategies';
import { normalizeAnswer } from '@fathom/rewards';

// 80 tasks per type with short contexts: every strategy runs on every task of its type (1,600 real episodes).
const TASKS: Task[] = [
  ...generateTasks({
    split: 'train',
    n: 320,
    seed: 7,
    minTokens: 512,
    maxTokens: 1024,
    mix: { niah: 1, extractive: 1, multi_needle: 1, counting: 1 },
  }),
];
const byId = new Map(TASKS.map((t) => [t.id, t]));

let pool: SandboxPool;
let every: SftExample[];
let everySkips: SftSkip[];
let everyStats: SftStats;

async function collect(options: Omit<Parameters<typeof buildSftExamples>[1], 'pool'>, tasks = TASKS) {
  const examples: SftExample[] = [];
  const skips: SftSkip[] = [];
  for await (const e of buildSftExamples(tasks, { ...options, pool, onSkip: (s) => skips.push(s) })) examples.push(e);
  return { examples, skips };
}

beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 4 });
  ({ examples: every, skips: everySkips } = await collect({ everyStrategy: true }));
  const acc = new SftStatsAccumulator();
  every.forEach((e) => acc.add(e));
  everyStats = acc.result();
}, 60_000);
afterAll(() => pool.close());

const codeOf = (completion: string): string | null => /^```js\n([\s\S]*)\n```$/.exec(completion)?.[1] ?? null;

describe('teacher episodes in the real sandbox', () => {
  it('every strategy runs on every task of its type without a sandbox error', () => {
    expect(everySkips).toEqual([]);
    const expected = TASKS.reduce((n, t) => n + STRATEGIES_BY_TYPE[t.type].length, 0);
    expect(every.length).toBe(expected);
    for (const e of every) expect(() => SftExampleSchema.parse(e)).not.toThrow();
  });

  it('robust strategies are always right; naive ones are right only part of the time', () => {
    for (const s of everyStats.byStrategy) {
      expect(s.examples, s.strategy).toBe(80);
      if (s.robust) expect(s.accuracy, s.strategy).toBe(1);
      else {
        expect(s.accuracy, s.strategy).toBeGreaterThan(0.2);
        expect(s.accuracy, s.strategy).toBeLessThan(0.95);
      }
    }
    expect(everyStats.byStrategy.map((s) => s.strategy).sort()).toEqual(TEACHER_STRATEGIES.map((s) => s.name).sort());
  });

  it('answers come from what the episode printed (or are a give-up after an empty search)', () => {
    for (const e of every) {
      const seen = normalizeAnswer(e.turns.map((t) => t.observation ?? '').join('\n'));
      if (e.answer === 'unknown') expect(e.correct).toBe(false);
      else expect(seen, `${e.strategy} ${e.task_id}`).toContain(normalizeAnswer(e.answer));
      expect(e.turns[e.turns.length - 1].completion).toBe(`<answer>${e.answer}</answer>`);
    }
  });

  it('sub-calls are answered by the teacher from their chunk, and render as trainable examples', () => {
    const withCalls = every.filter((e) => e.subcalls.length > 0);
    expect(new Set(withCalls.map((e) => e.strategy))).toEqual(
      new Set(TEACHER_STRATEGIES.filter((s) => s.usesLlm).map((s) => s.name)),
    );
    for (const e of withCalls)
      for (const call of e.subcalls) {
        expect(call.answer).toBe(answerSubcallAsTeacher(call.question, call.chunk));
        const segments = renderSftSubcall(call);
        expect(segments.filter((s) => s.trained).map((s) => s.text)).toEqual([`${call.answer}<|im_end|>`]);
      }
  });

  it('keeps completions and observations short enough for a tiny byte-level model', () => {
    // Cells are longer than a spelled-out key would need (they read the key from `question`), but each strategy's
    // cell is the same text on every task, so the policy memorises it rather than copying bytes from the prompt.
    const codes = every.flatMap((e) => e.turns.map((t) => codeOf(t.completion)).filter((c) => c !== null));
    const sorted = codes.map((c) => c.length).sort((a, b) => a - b);
    expect(sorted[sorted.length - 1]).toBeLessThanOrEqual(440);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThanOrEqual(200);
    expect(new Set(codes).size).toBeLessThanOrEqual(TEACHER_STRATEGIES.length + 4);
    for (const e of every) {
      expect(e.turns.length).toBeLessThanOrEqual(3);
      for (const t of e.turns) if (t.observation !== undefined) expect(t.observation.length).toBeLessThanOrEqual(600);
      expect(e.turns[e.turns.length - 1].completion.length).toBeLessThanOrEqual(40);
    }
  });

  it('renders examples whose prompt is exactly the rollout prompt of the same task', () => {
    const styles: PromptStyle[] = [
      { system: 'full', previewChars: 160 },
      { system: 'compact', previewChars: 64 },
    ];
    for (const style of styles)
      for (const e of every.slice(0, 40)) {
        const task = byId.get(e.task_id) as Task;
        expect(() =>
          preflightPromptShapes(renderSftExample(e, task, style), renderPrompt(renderTask(task), style)),
        ).not.toThrow();
      }
    const e = every[0];
    const task = byId.get(e.task_id) as Task;
    expect(() =>
      preflightPromptShapes(renderSftExample(e, task, styles[0]), renderPrompt(renderTask(task), styles[1])),
    ).toThrow(PromptDriftError);
    expect(() => renderSftExample(e, TASKS.find((t) => t.id !== e.task_id) as Task)).toThrow(/does not belong/);
  });
});

function renderTask(task: Task) {
  return { question: task.question, context: task.context, contextTokens: task.context_tokens };
}

describe('the default mix', () => {
  it('is deterministic given the seed, and the seed changes the draws', async () => {
    const tasks = TASKS.slice(0, 60);
    const a = await collect({ seed: 5 }, tasks);
    const b = await collect({ seed: 5 }, tasks);
    const c = await collect({ seed: 6 }, tasks);
    expect(b.examples).toEqual(a.examples);
    expect(c.examples.map((e) => e.strategy)).not.toEqual(a.examples.map((e) => e.strategy));
  });

  it('mixes robust and naive strategies into an imperfect but mostly right teacher', async () => {
    const { examples, skips } = await collect({ mix: DEFAULT_TEACHER_MIX, seed: 0, perTask: 2 });
    expect(skips).toEqual([]);
    expect(examples.length).toBe(2 * TASKS.length);
    const share = (pick: (e: SftExample) => boolean): number => examples.filter(pick).length / examples.length;
    expect(share((e) => e.robust)).toBeGreaterThan(0.4);
    expect(share((e) => e.robust)).toBeLessThan(0.6);
    expect(share((e) => e.subcalls.length > 0)).toBeGreaterThan(0.05);
    expect(share((e) => e.subcalls.length > 0)).toBeLessThan(0.35);
    const accuracy = share((e) => e.correct);
    expect(accuracy).toBeGreaterThan(0.65);
    expect(accuracy).toBeLessThan(0.95);
    for (const id of new Set(examples.map((e) => e.task_id))) {
      const pair = examples.filter((e) => e.task_id === id);
      expect(pair[0].strategy).not.toBe(pair[1].strategy);
    }
  });
});
