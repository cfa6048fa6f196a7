import { SftExampleSchema, type SftExample, type Task } from '@fathom/contracts';
import { SandboxPool, type LlmHandler } from '@fathom/sandbox';
import { generateTasks } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflightPromptShapes, PromptDriftError } from '../preflight';
import { renderPrompt, segmentsText, type PromptStyle } from '../prompt';
import { buildSftExamples, renderSftExample, renderSftSubcall } from './build';
import { MAX_CODE_TURNS, runTeacherEpisode, type SftSkip } from './episode';
import { TeacherError, TeacherErrorCode } from './errors';
import { DEFAULT_TEACHER_MIX } from './mix';
import { SftStatsAccumulator, type SftStats } from './stats';
import { answerSubcallAsTeacher } from './subcall';
import {
  findStrategy,
  STRATEGIES_BY_TYPE,
  TEACHER_STRATEGIES,
  type AnyTeacherStrategy,
  type TeacherStrategy,
} from './strategies';

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

/** The teacher's llm() handler, for replaying examples. */
const llm: LlmHandler = async ({ prompt, chunk }) => ({
  text: answerSubcallAsTeacher(prompt, chunk),
  promptTokens: 0,
  completionTokens: 0,
});

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

  it('the final turn is a cell that calls answer(), with no observation, and the answer is what that call gave', async () => {
    for (const e of every) {
      const last = e.turns[e.turns.length - 1];
      expect(codeOf(last.completion), `${e.strategy} ${e.task_id}`).toMatch(/(?:^|[^\w.])answer\(/);
      expect(last.observation).toBeUndefined();
      for (const t of e.turns.slice(0, -1)) expect(t.observation).toBeDefined();
      if (e.answer === 'unknown') expect(e.correct).toBe(false);
    }
    // Replays a sample of episodes cell by cell: only the last cell answers, and with the example's answer.
    for (const e of every.filter((_, i) => i % 8 === 0)) {
      const task = byId.get(e.task_id) as Task;
      const episode = await pool.openEpisode({ ctx: task.context, ctxKey: task.id, question: task.question, llm });
      try {
        const answers: (string | null)[] = [];
        for (const t of e.turns) answers.push((await episode.run(codeOf(t.completion) as string)).answer);
        expect(answers, `${e.strategy} ${e.task_id}`).toEqual([...e.turns.slice(1).map(() => null), e.answer]);
      } finally {
        await episode.close();
      }
    }
  });

  it('a look-refine strategy answers from its first cell when the search finds it, else from the fallback', async () => {
    const strategy = findStrategy('niah.exact_phrase') as AnyTeacherStrategy;
    const task = TASKS.find((t) => t.type === 'niah') as Task;
    const o = (/the (.+)\?/.exec(task.question) as RegExpExecArray)[1];
    const found = await runTeacherEpisode(strategy, { ...task, context: `Yes. The ${o} is teal. No.` }, pool);
    expect(found.kind === 'example' && found.example.turns.map((t) => t.observation)).toEqual([undefined]);
    expect(found.kind === 'example' && found.example.answer).toBe('teal');
    const refined = await runTeacherEpisode(strategy, { ...task, context: `The ${o} looks teal.` }, pool);
    expect(refined.kind === 'example' && refined.example.turns.map((t) => t.observation)).toEqual([
      'unknown',
      undefined,
    ]);
    expect(refined.kind === 'example' && refined.example.answer).toBe('teal');
  });

  it('a strategy that runs out of cells without calling answer() is a runaway', async () => {
    const base = findStrategy('counting.whole_word') as TeacherStrategy<'counting'>;
    const task = TASKS.find((t) => t.type === 'counting') as Task;
    const printing = (cells: number): TeacherStrategy<'counting'> => ({
      ...base,
      next: (_q, obs) => (obs.length < cells ? { code: "print('x')" } : null),
    });
    for (const cells of [1, MAX_CODE_TURNS + 2]) {
      const run = runTeacherEpisode(printing(cells), task, pool);
      await expect(run).rejects.toThrow(TeacherError);
      await expect(run).rejects.toMatchObject({ code: TeacherErrorCode.RUNAWAY_STRATEGY });
      await expect(run).rejects.toThrow(`ran ${Math.min(cells, MAX_CODE_TURNS)} cells without calling answer()`);
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
      expect(e.turns.length).toBeLessThanOrEqual(2);
      for (const t of e.turns) if (t.observation !== undefined) expect(t.observation.length).toBeLessThanOrEqual(600);
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

  it('renders the answering cell as the last trained turn, with no observation after it', () => {
    const twoTurns = every.find((e) => e.turns.length === 2) as SftExample;
    for (const e of [every[0], twoTurns]) {
      const segments = renderSftExample(e, byId.get(e.task_id) as Task);
      const completions = e.turns.map((t) => `${t.completion}<|im_end|>`);
      expect(segments.filter((s) => s.trained).map((s) => s.text)).toEqual(completions);
      expect(segments[segments.length - 1]).toEqual({ text: '\n', trained: false });
      expect(segmentsText(segments).endsWith(`${completions[completions.length - 1]}\n`)).toBe(true);
      expect(segmentsText(segments).split('Output:\n').length - 1).toBe(e.turns.length - 1);
    }
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
