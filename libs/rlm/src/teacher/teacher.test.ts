import {
  EpisodeSettingsSchema,
  escapeRegExp,
  SftExampleSchema,
  TASK_TYPES,
  type SftExample,
  type Split,
  type Task,
} from '@fathom/contracts';
import { SandboxPool, type LlmHandler } from '@fathom/sandbox';
import { generateTasks, oracleRead } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preflightPromptShapes, PromptDriftError } from '../preflight';
import { renderPrompt, renderSubcallPrompt, segmentsText, type PromptStyle } from '../prompt';
import { DEFAULT_READER_WINDOW_CHARS } from '../subcall';
import { buildSftExamples, drawEpisode, renderSftExample, renderSftSubcall, type BuildSftOptions } from './build';
import { drawStyle, lit } from './code';
import { MAX_CODE_TURNS, runTeacherEpisode, type SftSkip } from './episode';
import { TeacherError } from './errors';
import { NO_OUTPUT } from './observation';
import { DEFAULT_TEACHER_MIX } from './mix';
import { SftStatsAccumulator, type SftStats } from './stats';
import { findStrategy, STRATEGIES_BY_TYPE, TEACHER_STRATEGIES, type TeacherStrategy } from './strategies';
import { drawStream } from './rng';

// Every type, train and heldout splits (heldout mixes unseen phrasings and frames), two seeds; short contexts so
// that every strategy runs on every task of its type in the real sandbox.
const PER_TYPE = 10;
const SPLITS: Split[] = ['train', 'heldout'];
const SEEDS = [7, 8, 9];
const TASKS: Task[] = SPLITS.flatMap((split) =>
  SEEDS.flatMap((seed) => [
    ...generateTasks({
      split,
      n: PER_TYPE * TASK_TYPES.length,
      seed,
      minTokens: 1024,
      maxTokens: 4096,
      mix: Object.fromEntries(TASK_TYPES.map((t) => [t, 1])),
    }),
  ]),
);
const byId = new Map(TASKS.map((t) => [t.id, t]));

let pool: SandboxPool;
let every: SftExample[];
let everySkips: SftSkip[];
let everyStats: SftStats;

async function collect(options: Omit<BuildSftOptions, 'pool'>, tasks = TASKS) {
  const examples: SftExample[] = [];
  const skips: SftSkip[] = [];
  for await (const e of buildSftExamples(tasks, { ...options, pool, onSkip: (s) => skips.push(s) })) examples.push(e);
  return { examples, skips };
}

beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 4 });
  ({ examples: every, skips: everySkips } = await collect({ everyStrategy: true, repairShare: 0 }));
  const acc = new SftStatsAccumulator();
  every.forEach((e) => acc.add(e));
  everyStats = acc.result();
}, 180_000);
afterAll(() => pool.close());

/** The question-only programs, which copy nothing from the question: the ones the default root writes. */
const isQuestionOnly = (strategy: string): boolean =>
  strategy.endsWith('.search_question') || strategy === 'counting.quoted_word';

const codeOf = (completion: string): string => /^```js\n([\s\S]*)\n```$/.exec(completion)?.[1] ?? '';

/** The oracle reader as an llm() handler, for replaying examples. */
const replayLlm =
  (task: Task): LlmHandler =>
  async ({ prompt, chunk }) => ({ text: oracleRead(task, prompt, chunk ?? ''), promptTokens: 0, completionTokens: 0 });

/** Plays `example`'s cells on `task` (its own by default) in the real sandbox, the oracle reader answering llm(). */
async function replay(
  example: SftExample,
  task = byId.get(example.task_id) as Task,
): Promise<{ answers: (string | null)[]; errors: (string | null)[] }> {
  const episode = await pool.openEpisode({
    ctx: task.context,
    ctxKey: task.id,
    question: task.question,
    llm: replayLlm(task),
  });
  try {
    const answers: (string | null)[] = [];
    const errors: (string | null)[] = [];
    for (const t of example.turns) {
      const result = await episode.run(codeOf(t.completion));
      answers.push(result.answer);
      errors.push(result.error?.code ?? null);
    }
    return { answers, errors };
  } finally {
    await episode.close();
  }
}

describe('teacher episodes in the real sandbox, with the oracle reader', () => {
  it('every strategy runs on every task of its type without a sandbox error', () => {
    expect(everySkips).toEqual([]);
    expect(every.length).toBe(TASKS.reduce((n, t) => n + STRATEGIES_BY_TYPE[t.type].length, 0));
    for (const e of every) expect(() => SftExampleSchema.parse(e)).not.toThrow();
  });

  it('robust strategies are right on every task of their type, train and heldout, every seed', () => {
    for (const s of everyStats.byStrategy) {
      expect(s.examples, s.strategy).toBe(PER_TYPE * SPLITS.length * SEEDS.length);
      if (s.robust) expect(s.accuracy, s.strategy).toBe(1);
      else expect(s.accuracy, s.strategy).toBeLessThan(1);
    }
    const wrong = every.filter((e) => e.robust && !e.correct).map((e) => `${e.strategy} ${e.task_id}: ${e.answer}`);
    expect(wrong).toEqual([]);
  });

  it.each(['multi_hop.search_question', 'multi_needle.search_question'])(
    "%s's first turn prints nothing: its second follows the same observation whatever the first read",
    (strategy) => {
      const examples = every.filter((e) => e.strategy === strategy);
      expect(examples.length).toBeGreaterThan(0);
      for (const e of examples) expect(e.turns.map((t) => t.observation).slice(0, -1)).toEqual([NO_OUTPUT]);
    },
  );

  it.each([
    ['multi_hop.search_question', 'no owner is stated'],
    ['multi_needle.search_question', 'the question lists no items'],
  ])('the %s program backs off to reading a one-key question itself where %s', async (strategy) => {
    const program = every.find((e) => e.strategy === strategy && e.correct)!;
    const oneKey = TASKS.filter((t) => t.type === 'niah' || t.type === 'extractive' || t.type === 'tracking');
    const wrong: string[] = [];
    for (const task of oneKey) {
      const { answers } = await replay(program, task);
      if (answers.at(-1) !== task.answer) wrong.push(`${task.id} (${task.type}): ${answers.at(-1)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("every turn of the default root's programs fits the byte-level root's turn budget (a byte a token, and the end)", () => {
    const budget = EpisodeSettingsSchema.parse({}).maxTokensPerTurn;
    // multi_needle.read_per_item, with three long item names spelt out, can run a few bytes over.
    const rootPrograms = every.filter((e) => isQuestionOnly(e.strategy));
    expect(new Set(rootPrograms.map((e) => e.type)).size).toBe(TASK_TYPES.length);
    const over = rootPrograms.flatMap((e) =>
      e.turns
        .map((t) => Buffer.byteLength(t.completion) + 1)
        .filter((tokens) => tokens > budget)
        .map((tokens) => `${e.strategy} ${e.task_id}: ${tokens}`),
    );
    expect(over).toEqual([]);
  });

  it("code copies the question's keys as literals (entities learnt at run time, like an owner, stay variables)", () => {
    for (const e of every) {
      const task = byId.get(e.task_id) as Task;
      const code = e.turns.map((t) => codeOf(t.completion)).join('\n');
      const inQuestion = (task.meta?.keys ?? []).filter((k) => task.question.includes(k));
      expect(inQuestion).toContain(task.meta?.key);
      if (isQuestionOnly(e.strategy)) {
        // search(question) finds the key's sentences, or the quoted word is taken at run time: nothing is copied.
        expect(code).toMatch(/search\(question\)|question\.match\(/);
        for (const key of inQuestion)
          expect(code.includes(lit(key)) || code.includes(escapeRegExp(key)), key).toBe(false);
        continue;
      }
      for (const key of inQuestion)
        expect(code.includes(lit(key)) || code.includes(escapeRegExp(key)), `${e.strategy} ${e.task_id} ${key}`).toBe(
          true,
        );
      expect(code, e.strategy).not.toMatch(/question\.match\(/);
    }
  });

  it('writes many program texts per strategy: no single cell to memorise', () => {
    for (const strategy of TEACHER_STRATEGIES) {
      const skeletons = new Set(
        every
          .filter((e) => e.strategy === strategy.name)
          .map((e) => {
            const task = byId.get(e.task_id) as Task;
            let code = e.turns.map((t) => codeOf(t.completion)).join('\n');
            for (const key of task.meta?.keys ?? [])
              code = code.split(lit(key)).join('KEY').split(escapeRegExp(key)).join('KEY');
            return code;
          }),
      );
      // The substring count has one phrasing and the quoted-word count two (question-only, fixed names); everything
      // else is drawn from many.
      const least = { 'counting.substring': 1, 'counting.quoted_word': 2 }[strategy.name] ?? 5;
      expect(skeletons.size, strategy.name).toBeGreaterThanOrEqual(least);
    }
  });

  it('llm() is called only by strategies that read, and every chunk fits the reader window (a leaf)', () => {
    for (const e of every) {
      const strategy = findStrategy(e.strategy) as TeacherStrategy;
      if (!strategy.usesLlm) expect(e.subcalls, e.strategy).toEqual([]);
      for (const call of e.subcalls) {
        expect((call.chunk ?? '').length).toBeLessThanOrEqual(DEFAULT_READER_WINDOW_CHARS);
        const task = byId.get(e.task_id) as Task;
        expect(call.answer).toBe(oracleRead(task, call.question, call.chunk ?? ''));
      }
    }
    for (const type of ['tracking', 'multi_hop', 'multi_needle'] as const)
      expect(
        every.filter((e) => e.type === type && e.robust).every((e) => e.subcalls.length > 0),
        type,
      ).toBe(true);
    const hops = every.filter((e) => e.type === 'multi_hop' && e.robust);
    expect(hops.every((e) => e.subcalls.length >= 2)).toBe(true);
  });

  it('refuses an llm() chunk above the reader window instead of answering it as a leaf', async () => {
    const base = findStrategy('niah.read_mentions') as TeacherStrategy;
    const whole: TeacherStrategy = {
      ...base,
      next: (_v, _s, obs) => (obs.length === 0 ? { code: 'answer(llm(question, ctx))' } : null),
    };
    const task = TASKS.find((t) => t.type === 'niah') as Task;
    const run = runTeacherEpisode(whole, task, pool, { style: drawStyle(drawStream(0, task.id)) });
    await expect(run).rejects.toMatchObject({ code: 'OVERSIZED_SUBCALL' });
  });

  it('the final turn is a cell that calls answer(); replayed, only that cell answers, with the same answer', async () => {
    for (const e of every) {
      const last = e.turns[e.turns.length - 1];
      expect(codeOf(last.completion), `${e.strategy} ${e.task_id}`).toMatch(/(?:^|[^\w.])answer\(/);
      expect(last.observation).toBeUndefined();
      if (e.answer === 'unknown') expect(e.correct).toBe(false);
    }
    for (const e of every.filter((_, i) => i % 9 === 0)) {
      const { answers, errors } = await replay(e);
      expect(errors.every((x) => x === null)).toBe(true);
      expect(answers, `${e.strategy} ${e.task_id}`).toEqual([...e.turns.slice(1).map(() => null), e.answer]);
    }
  }, 60_000);

  it('a strategy that runs out of cells without calling answer() is a runaway', async () => {
    const base = findStrategy('counting.whole_word') as TeacherStrategy;
    const task = TASKS.find((t) => t.type === 'counting') as Task;
    const printing = (cells: number): TeacherStrategy => ({
      ...base,
      next: (_v, _s, obs) => (obs.length < cells ? { code: "print('x')" } : null),
    });
    for (const cells of [1, MAX_CODE_TURNS + 2]) {
      const run = runTeacherEpisode(printing(cells), task, pool, { style: drawStyle(drawStream(0, task.id)) });
      await expect(run).rejects.toThrow(TeacherError);
      await expect(run).rejects.toMatchObject({ code: 'RUNAWAY_STRATEGY' });
      await expect(run).rejects.toThrow(`ran ${Math.min(cells, MAX_CODE_TURNS)} cells without calling answer()`);
    }
  });

  it('skips a task without generator meta', async () => {
    const task = TASKS[0];
    const strategy = STRATEGIES_BY_TYPE[task.type][0];
    const result = await runTeacherEpisode(strategy, { ...task, meta: undefined }, pool, {
      style: drawStyle(drawStream(0, task.id)),
    });
    expect(result).toMatchObject({ kind: 'skip', skip: { reason: 'no_meta' } });
  });

  it('renders examples whose prompt is exactly the rollout prompt of the same task, and sub-calls as leaf prompts', () => {
    const styles: PromptStyle[] = [
      { system: 'full', previewChars: 160 },
      { system: 'compact', previewChars: 64 },
    ];
    for (const style of styles)
      for (const e of every.slice(0, 40)) {
        const task = byId.get(e.task_id) as Task;
        expect(() =>
          preflightPromptShapes(renderSftExample(e, task, style), renderPrompt(promptTask(task), style)),
        ).not.toThrow();
      }
    const e = every[0];
    const task = byId.get(e.task_id) as Task;
    expect(() =>
      preflightPromptShapes(renderSftExample(e, task, styles[0]), renderPrompt(promptTask(task), styles[1])),
    ).toThrow(PromptDriftError);
    expect(() => renderSftExample(e, TASKS.find((t) => t.id !== e.task_id) as Task)).toThrow(/does not belong/);
    const call = every.flatMap((x) => x.subcalls)[0];
    const segments = renderSftSubcall(call);
    expect(segmentsText(segments)).toBe(
      segmentsText(renderSubcallPrompt(call.question, call.chunk)) + `${call.answer}<|im_end|>\n`,
    );
    expect(segments.filter((s) => s.trained).map((s) => s.text)).toEqual([`${call.answer}<|im_end|>`]);
  });
});

describe('repair turns', () => {
  let repaired: SftExample[];
  beforeAll(async () => {
    const robust = TASKS.filter((_, i) => i % 2 === 0);
    const { examples, skips } = await collect({ mix: { robust: 1, weights: {} }, repairShare: 1, seed: 3 }, robust);
    expect(skips).toEqual([]);
    repaired = examples;
  }, 120_000);

  it('open with a broken cell whose sandbox error is the observation, then recover and answer right', () => {
    expect(repaired.length).toBeGreaterThan(50);
    expect(new Set(repaired.map((e) => e.repair))).toEqual(new Set(['typo', 'paren', 'array_text']));
    for (const e of repaired) {
      expect(e.repair, e.task_id).toBeDefined();
      expect(e.turns[0].observation, `${e.strategy} ${e.repair}`).toMatch(/(SyntaxError|ReferenceError|TypeError)/);
      expect(e.correct, `${e.strategy} ${e.task_id} ${e.repair}`).toBe(true);
    }
  });

  it('really error then recover when replayed in the sandbox', async () => {
    for (const e of repaired.filter((_, i) => i % 4 === 0)) {
      const { answers, errors } = await replay(e);
      expect(errors[0], `${e.strategy} ${e.repair}`).not.toBeNull();
      expect(errors.slice(1).every((x) => x === null)).toBe(true);
      expect(answers).toEqual([...e.turns.slice(1).map(() => null), e.answer]);
    }
  }, 60_000);
});

describe('the default mix', () => {
  it('is deterministic given the seed, and the seed changes strategies and code', async () => {
    const tasks = TASKS.slice(0, 40);
    const a = await collect({ seed: 5 }, tasks);
    const b = await collect({ seed: 5 }, tasks);
    const c = await collect({ seed: 6 }, tasks);
    expect(b.examples).toEqual(a.examples);
    expect(c.examples.map((e) => e.turns)).not.toEqual(a.examples.map((e) => e.turns));
    const task = tasks[0];
    const strategy = STRATEGIES_BY_TYPE[task.type][0];
    expect(drawEpisode(strategy, task, 5, 0.15)).toEqual(drawEpisode(strategy, task, 5, 0.15));
  });

  it('is mostly robust, with some naive and some repair examples: a mostly right teacher', async () => {
    const { examples, skips } = await collect({ mix: DEFAULT_TEACHER_MIX, seed: 0 });
    expect(skips).toEqual([]);
    const share = (pick: (e: SftExample) => boolean): number => examples.filter(pick).length / examples.length;
    expect(share((e) => e.robust)).toBeGreaterThan(0.75);
    expect(share((e) => e.robust)).toBeLessThan(0.95);
    expect(share((e) => e.repair !== undefined)).toBeGreaterThan(0.05);
    expect(share((e) => e.repair !== undefined)).toBeLessThan(0.3);
    expect(share((e) => e.subcalls.length > 0)).toBeGreaterThan(0.5);
    expect(share((e) => e.correct)).toBeGreaterThan(0.8);
    expect(share((e) => e.correct)).toBeLessThan(1);
  }, 60_000);
});

function promptTask(task: Task) {
  return { question: task.question, context: task.context, contextTokens: task.context_tokens };
}
