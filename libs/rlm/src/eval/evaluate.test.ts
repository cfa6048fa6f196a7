import type { Task } from '@fathom/contracts';
import { ByteTokenizer } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IM_START } from '../prompt';
import { ScriptedTestPolicy, type ScriptCall } from '../episode/scripted-policy.test-double';
import { contextBucketOf, evaluate, formatEvalTable } from './evaluate';

const tokenizer = new ByteTokenizer();

function task(id: string, type: Task['type'], tokens: number, question: string, answer: string, fact: string): Task {
  const half = 'The weather was mild and the lamps were lit. '.repeat(Math.ceil((tokens * 4) / 90));
  const context = `${half}${fact} ${half}`;
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
  };
}

const TASKS: Task[] = [
  task('niah-5k', 'niah', 5_000, 'What color is the mirror?', 'teal', 'The mirror is teal.'),
  task('niah-20k', 'niah', 20_000, 'What color is the vase?', 'red', 'The vase is red.'),
  task('count-70k', 'counting', 70_000, 'How many times does the word lamp appear?', '3', 'The lamp is lit.'),
  task('extract-5k', 'extractive', 5_000, 'Which city hosted the summit?', 'Oslo', 'The summit is Oslo.'),
];

/** Greps "The X is Y." and answers Y: right for the niah tasks, wrong for counting. */
const grepSolver = ({ prompt }: ScriptCall) =>
  prompt.split(`${IM_START}assistant`).length === 2
    ? '```js\nprint(ctx.match(/The (\\w+) is (\\w+)\\./)[2])\n```'
    : `<answer>${/Output:\n(\w+)/.exec(prompt)?.[1]}</answer>`;

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

describe('evaluate', () => {
  it('scores one greedy episode per task and aggregates by type and context bucket, excluding infra errors', async () => {
    const policy = new ScriptedTestPolicy(tokenizer, grepSolver, {
      version: 5,
      fail: (_, requests) => requests.some((r) => tokenizer.decode(r.prompt).includes('Which city')),
    });
    const seen: string[] = [];
    const report = await evaluate(policy, TASKS, {
      sandbox: pool,
      episode: { maxInfraRetries: 1 },
      onTask: (r, done, total) => seen.push(`${done}/${total}`),
    });
    expect(seen).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect(policy.calls.every((c) => c.params.temperature === 0)).toBe(true);
    expect(report).toMatchObject({ policyVersion: 5, mode: 'greedy' });
    expect(report.overall).toMatchObject({ n: 4, scored: 3, excluded: 1, meanTurns: 2, meanLlmCalls: 0 });
    expect(report.overall.accuracy).toBeCloseTo(2 / 3);
    expect(report.tasks.map((t) => [t.taskId, t.bucket, t.status, t.correct])).toEqual([
      ['niah-5k', '4-16K', 'ok', true],
      ['niah-20k', '16-64K', 'ok', true],
      ['count-70k', '64-200K', 'ok', false],
      ['extract-5k', '4-16K', 'infra_error', null],
    ]);
    expect(report.tasks[3].infraError).toMatch(/^policy_error: .*injected failure/);
    expect(report.byType).toEqual({
      niah: expect.objectContaining({ n: 2, scored: 2, accuracy: 1 }),
      extractive: expect.objectContaining({ n: 1, scored: 0, excluded: 1, accuracy: 0 }),
      counting: expect.objectContaining({ n: 1, scored: 1, accuracy: 0 }),
    });
    expect(Object.keys(report.byBucket)).toEqual(['4-16K', '16-64K', '64-200K']);
    expect(report.byBucket['4-16K']).toMatchObject({ n: 2, scored: 1, excluded: 1, accuracy: 1 });
    expect(report.byBucket['64-200K']).toMatchObject({ n: 1, accuracy: 0 });
    const correctReward = report.tasks[0].reward!;
    const wrongReward = report.tasks[2].reward!;
    expect(correctReward).toBeGreaterThan(wrongReward);
    expect(report.byType.niah!.meanTokens).toBe(
      (report.tasks[0].completionTokens + report.tasks[1].completionTokens) / 2,
    );
    expect(report.rollout.episodes).toBe(3);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);

    const table = formatEvalTable(report);
    expect(table).toMatch(/^overall\s+4\s+1\s+66\.7%/m);
    expect(table).toMatch(/^type extractive\s+1\s+1\s+—/m);
    expect(table).toMatch(/^ctx 64-200K\s+1\s+0\s+0\.0%/m);
  });
});
