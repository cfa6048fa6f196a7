import type { Task, TaskMeta } from '@fathom/contracts';
import { ByteTokenizer } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IM_START } from '../prompt';
import { ScriptedTestPolicy, type ScriptCall } from '../episode/scripted-policy.test-double';
import { contextBucketOf, evaluate, type EvalEpisode } from './evaluate';
import { scoreLeaf, subquestionOfLeaf } from './leaf';
import { evaluateSuite, spreadOf, type EvalSystem } from './suite';
import { formatEvalTable } from './table';

const tokenizer = new ByteTokenizer();
const FILLER = 'The weather was mild and the road was quiet. ';

function task(
  id: string,
  type: Task['type'],
  tokens: number,
  question: string,
  answer: string,
  facts: string[],
  meta?: Pick<TaskMeta, 'phrasing' | 'subquestions'>,
): Task {
  const half = FILLER.repeat(Math.ceil((tokens * 4) / (2 * FILLER.length)));
  const context = `${half}${facts.join(` ${FILLER}`)} ${half}`;
  return {
    id,
    split: 'heldout',
    type,
    question,
    context,
    answer,
    aliases: [],
    context_tokens: estimateTokens(context),
    needle_positions: [],
    variants: [],
    ...(meta === undefined ? {} : { meta: { key: 'lamp', keys: ['lamp'], frames: [], ...meta } }),
  };
}

const seen = (template: string) => ({ family: 'train' as const, template });
const unseen = (template: string) => ({ family: 'heldout' as const, template });

const TASKS: Task[] = [
  task('niah-5k', 'niah', 5_000, 'What colour is the mirror?', 'teal', ['The mirror is teal.'], {
    phrasing: seen('niah.q.t1'),
    subquestions: [{ question: 'What colour is the mirror?', evidence: ['The mirror is teal.'], answer: 'teal' }],
  }),
  task(
    'track-70k',
    'tracking',
    70_000,
    'Where is the lamp now?',
    'cellar',
    ['The lamp was moved to the attic.', 'The lamp was moved to the cellar.'],
    {
      phrasing: unseen('tracking.q.h1'),
      subquestions: [
        {
          question: 'Where is the lamp now?',
          evidence: ['The lamp was moved to the attic.', 'The lamp was moved to the cellar.'],
          answer: 'cellar',
        },
      ],
    },
  ),
  task(
    'count-20k',
    'counting',
    20_000,
    'How many times did a bell ring?',
    '3',
    ['A bell rang.', 'A bell rang.', 'A bell rang.'],
    {
      phrasing: seen('counting.q.t2'),
      subquestions: [],
    },
  ),
  task(
    'hop-5k',
    'multi_hop',
    5_000,
    'In which city does the owner of the lamp live?',
    'Oslo',
    ['The owner of the lamp is Vera.', 'Vera lives in Oslo.'],
    {
      phrasing: unseen('multi_hop.q.h2'),
      subquestions: [
        { question: 'Who owns the lamp?', evidence: ['The owner of the lamp is Vera.'], answer: 'Vera' },
        { question: 'In which city does Vera live?', evidence: ['Vera lives in Oslo.'], answer: 'Oslo' },
      ],
    },
  ),
];

/**
 * A policy with known behaviour per question: niah by a regex cell (right); tracking through one llm() over the
 * lamp's sentences (its reader takes the first sentence's last word: wrong); counting by a guess (wrong); multi_hop
 * through two leaf reads (right) after a read of a chunk without evidence, which its reader answers with a word of the
 * filler instead of "unknown". After an error it answers "unknown".
 */
function scripted({ prompt }: ScriptCall): string {
  const text = /\n\nText:\n([\s\S]*?)<\|im_end\|>/.exec(prompt);
  if (text !== null) return /(\w+)\.(?:\s|$)/.exec(text[1])?.[1] ?? 'unknown';
  if (prompt.split(`${IM_START}assistant`).length > 2) return '<answer>unknown</answer>';
  const cell = (code: string) => `\`\`\`js\n${code}\n\`\`\``;
  if (prompt.includes('What colour is')) return cell('answer(ctx.match(/The (\\w+) is (\\w+)\\./)[2])');
  if (prompt.includes('Where is the lamp'))
    return cell("answer(llm('Where is the lamp now?', ctx.match(/[^.]*lamp[^.]*\\./g).join(' ')))");
  if (prompt.includes('How many times')) return cell("answer('0')");
  return cell(
    [
      "llm('Who owns the lamp?', ctx.slice(0, 200));",
      "const who = llm('Who owns the lamp?', ctx.match(/The owner of the lamp is \\w+\\./)[0]);",
      "answer(llm('In which city does ' + who + ' live?', ctx.match(new RegExp(who + ' lives in \\\\w+\\\\.'))[0]));",
    ].join('\n'),
  );
}

/** The no-model baseline of the suite test: "The X is Y." answers Y, else the first move's place. */
const regexProgram = (t: Task) =>
  /The (\w+) is (\w+)\./.exec(t.context)?.[2] ?? /to the (\w+)/.exec(t.context)?.[1] ?? 'unknown';

/** Reads the gold sub-answer whose evidence the chunk holds. */
const goldReader = (t: Task, question: string, chunk: string) =>
  subquestionOfLeaf(t, question, chunk)?.answer ?? 'unknown';

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 2 });
});
afterAll(() => pool.close());

describe('contextBucketOf', () => {
  it('puts token counts into the 4–16K, 16–64K and 64–200K buckets', () => {
    expect([4_095, 4_096, 16_383, 16_384, 65_535, 65_536, 200_000, 200_001].map(contextBucketOf)).toEqual([
      '<4K',
      '4-16K',
      '4-16K',
      '16-64K',
      '16-64K',
      '64-200K',
      '64-200K',
      '>200K',
    ]);
  });
});

describe('leaf scoring', () => {
  const hop = TASKS[3];
  it('scores a chunk that holds a sub-question’s evidence against its answer, with the reward’s normalisation', () => {
    expect(scoreLeaf(hop, 'Who owns the lamp?', 'x The owner of the lamp is Vera. y', 'the VERA.')).toMatchObject({
      gold: 'Vera',
      verdict: 'correct',
    });
    expect(scoreLeaf(hop, 'Who owns the lamp?', 'The owner of the lamp is Vera.', 'Oslo').verdict).toBe('wrong');
    expect(scoreLeaf(hop, 'Who owns the lamp?', FILLER, 'Vera')).toMatchObject({ gold: null, verdict: 'no_evidence' });
    const { meta: _, ...userTask } = hop;
    expect(scoreLeaf(userTask, 'Who owns the lamp?', 'The owner of the lamp is Vera.', 'Vera').verdict).toBe('no_meta');
  });

  it('picks, among sub-questions whose evidence the chunk holds, the one the call asks', () => {
    const both = 'The owner of the lamp is Vera. Vera lives in Oslo.';
    expect(subquestionOfLeaf(hop, 'Which city is Vera living in?', both)?.answer).toBe('Oslo');
    expect(subquestionOfLeaf(hop, 'Who is the owner of the lamp?', both)?.answer).toBe('Vera');
    expect(subquestionOfLeaf(hop, 'Who owns the lamp?', 'The owner of the lamp is')).toBeNull();
  });

  it('reads numbers as numbers', () => {
    const count = task('c', 'counting', 100, 'How many?', '3', ['x'], {
      phrasing: seen('c'),
      subquestions: [{ question: 'How many bells rang?', evidence: ['A bell rang.'], answer: '3' }],
    });
    expect(scoreLeaf(count, 'How many bells rang?', 'A bell rang.', 'three').verdict).toBe('correct');
  });
});

describe('spreadOf', () => {
  it('gives the mean, the sample standard deviation and the range', () => {
    expect(spreadOf([0.5])).toEqual({ mean: 0.5, sd: 0, min: 0.5, max: 0.5 });
    const s = spreadOf([0.2, 0.4, 0.6]);
    expect(s.mean).toBeCloseTo(0.4);
    expect(s.sd).toBeCloseTo(0.2);
    expect([s.min, s.max]).toEqual([0.2, 0.6]);
  });
});

describe('evaluate', () => {
  it('excludes an episode whose policy failed after retries, never scoring it wrong', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, scripted, {
      fail: (_, requests) => requests.some((r) => tokenizer.decode(r.prompt).includes('How many times')),
    });
    const report = await evaluate(policy, TASKS.slice(0, 3), { sandbox: pool, episode: { maxInfraRetries: 1 } });
    expect(report.tasks.map((t) => [t.taskId, t.status, t.correct])).toEqual([
      ['niah-5k', 'ok', true],
      ['track-70k', 'ok', false],
      ['count-20k', 'infra_error', null],
    ]);
    expect(report.tasks[2].infraError).toMatch(/^policy_error: .*injected failure/);
    expect(report.overall).toMatchObject({ n: 3, scored: 2, excluded: 1, accuracy: 0.5 });
    expect(report.byType.counting).toMatchObject({ n: 1, scored: 0, excluded: 1 });
  });
});

describe('evaluateSuite', () => {
  it('reports the policy and the regex, no-llm and oracle baselines on the same tasks, with llm() use and leaf accuracy', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, scripted, { version: 3 });
    const episodes: (EvalEpisode & { system: EvalSystem; seed: number })[] = [];
    const progress: string[] = [];
    const report = await evaluateSuite(policy, TASKS, {
      sandbox: pool,
      regexProgram,
      oracleReader: goldReader,
      onTask: (p) => progress.push(`${p.system}:${p.done}/${p.total}`),
      onEpisode: (e) => episodes.push(e),
    });
    expect(policy.calls.every((c) => c.params.temperature === 0)).toBe(true);
    expect(progress.at(-1)).toBe('oracle:16/16');
    expect(report).toMatchObject({ policyVersion: 3, mode: 'greedy', seeds: [0], tasks: 4 });
    expect(report.systems.map((s) => s.system)).toEqual(['policy', 'regex', 'no-llm', 'oracle']);

    const [mine, regex, noLlm, oracle] = report.systems.map((s) => s.runs[0]);
    const verdicts = (run: typeof mine) => run.tasks.map((t) => t.correct);
    expect(verdicts(mine)).toEqual([true, false, false, true]);
    expect(verdicts(regex)).toEqual([true, false, false, false]);
    expect(verdicts(noLlm)).toEqual([true, false, false, false]);
    expect(verdicts(oracle)).toEqual([true, true, false, true]);

    expect(mine.byPhrasing).toEqual({
      seen: expect.objectContaining({ n: 2, accuracy: 0.5 }),
      unseen: expect.objectContaining({ n: 2, accuracy: 0.5 }),
    });
    expect(Object.keys(mine.byBucket)).toEqual(['4-16K', '16-64K', '64-200K']);
    expect(mine.byTypeAndBucket['tracking 64-200K']).toMatchObject({ n: 1, callingShare: 1, accuracy: 0 });
    expect(mine.overall).toMatchObject({
      accuracy: 0.5,
      meanLlmCalls: 1,
      callingShare: 0.5,
      maxDepth: 1,
      leafCalls: 4,
      leafScored: 3,
      leafCorrect: 2,
      leafNoEvidence: 1,
      leafNoEvidenceAnswered: 1,
    });
    expect(mine.overall.leafAccuracy).toBeCloseTo(2 / 3);
    expect(mine.tasks[1].leaves).toEqual([
      {
        question: 'Where is the lamp now?',
        chunkChars: expect.any(Number),
        answer: 'attic',
        gold: 'cellar',
        verdict: 'wrong',
      },
    ]);
    expect(oracle.overall).toMatchObject({
      accuracy: 0.75,
      leafScored: 3,
      leafCorrect: 3,
      leafAccuracy: 1,
      leafNoEvidence: 1,
      leafNoEvidenceAnswered: 0,
    });
    expect(noLlm.overall).toMatchObject({ accuracy: 0.25, meanLlmCalls: 0, callingShare: 0, leafCalls: 0 });
    expect(report.systems[0].summary.overall.accuracy).toEqual({ mean: 0.5, sd: 0, min: 0.5, max: 0.5 });

    expect(episodes).toHaveLength(16);
    const hop = episodes.find((e) => e.system === 'policy' && e.taskId === 'hop-5k')!;
    expect(hop.turns[0].completion).toContain("llm('Who owns the lamp?'");
    expect(hop.calls.map((c) => [c.kind, c.depth, c.question, c.answer])).toEqual([
      ['leaf', 1, 'Who owns the lamp?', 'quiet'],
      ['leaf', 1, 'Who owns the lamp?', 'Vera'],
      ['leaf', 1, 'In which city does Vera live?', 'Oslo'],
    ]);
    expect(hop.calls[0].chunkChars).toBe(200);
    const blocked = episodes.find((e) => e.system === 'no-llm' && e.taskId === 'track-70k')!;
    expect(blocked.turns[0].observation).toMatch(/llm\(\) is disabled/);
    expect(blocked.answer).toBe('unknown');
    expect(episodes.find((e) => e.system === 'regex' && e.taskId === 'track-70k')).toMatchObject({
      answer: 'attic',
      turns: [],
    });
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);

    const table = formatEvalTable(report);
    expect(table).toMatch(/^group\s+n\s+policy\s+regex\s+no-llm\s+oracle$/m);
    expect(table).toMatch(/^overall\s+4\s+50\.0%\s+25\.0%\s+25\.0%\s+75\.0%$/m);
    expect(table).toMatch(/^phrasing unseen\s+2\s+50\.0%\s+0\.0%\s+0\.0%\s+100\.0%$/m);
    expect(table).toMatch(
      /^policy overall\s+4\s+0\s+1\.00\s+50\.0%\s+0\.50\s+1\s+4\s+66\.7% of 3\s+1 \(1 answered\)$/m,
    );
    expect(table).toMatch(
      /^oracle type multi_hop\s+1\s+0\s+3\.00\s+100\.0%\s+1\.00\s+1\s+3\s+100\.0% of 2\s+1 \(0 answered\)$/m,
    );
  });

  it('runs every policy-driven system once per seed when sampled and reports the spread', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, scripted);
    const report = await evaluateSuite(policy, TASKS.slice(0, 1), {
      sandbox: pool,
      mode: 'sampled',
      seeds: [0, 1, 2],
      baselines: ['regex', 'no-llm'],
      regexProgram,
    });
    expect(policy.calls.every((c) => c.params.temperature === 1)).toBe(true);
    expect(report.systems.map((s) => [s.system, s.runs.map((r) => r.seed)])).toEqual([
      ['policy', [0, 1, 2]],
      ['regex', [0]],
      ['no-llm', [0, 1, 2]],
    ]);
    // Each seed samples differently; the no-llm baseline of a seed meets the same sampling seeds as the policy.
    const seeds = policy.calls.map((c) => c.requests[0].seed);
    expect(seeds).toHaveLength(6);
    expect(new Set(seeds).size).toBe(3);
    expect(seeds.slice(3)).toEqual(seeds.slice(0, 3));
    expect(formatEvalTable(report)).toMatch(/^overall\s+1\s+100\.0% ±0\.0 \(100\.0–100\.0\)\s+100\.0%/m);
  });

  it('refuses several seeds in greedy mode and a baseline without its program', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, scripted);
    await expect(evaluateSuite(policy, TASKS, { sandbox: pool, seeds: [0, 1] })).rejects.toThrow(/deterministic/);
    await expect(evaluateSuite(policy, TASKS, { sandbox: pool, baselines: ['oracle'] })).rejects.toThrow(
      /oracleReader/,
    );
  });
});
