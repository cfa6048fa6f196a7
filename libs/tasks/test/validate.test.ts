import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Task } from '@fathom/contracts';
import {
  TasksError,
  generateTasks,
  readTasksJsonl,
  serializeTask,
  validateTasksFile,
  writeTasksJsonl,
} from '@fathom/tasks';

const dir = mkdtempSync(join(tmpdir(), 'fathom-validate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const [niah, counting] = [
  [...generateTasks({ split: 'eval', n: 1, seed: 1, minTokens: 512, maxTokens: 512, mix: { niah: 1 } })][0],
  [...generateTasks({ split: 'eval', n: 1, seed: 1, minTokens: 512, maxTokens: 512, mix: { counting: 1 } })][0],
];
const line = (task: Task) => serializeTask(task);
/** The task with one more sentence at the end of its context (needle positions stay valid). */
const withSentence = (task: Task, sentence: string): Task => {
  const context = `${task.context} ${sentence}`;
  return { ...task, id: 'extra-sentence', context, context_tokens: Math.ceil(context.length / 4) };
};
const without = (task: Task, ...keys: string[]) =>
  JSON.stringify(Object.fromEntries(Object.entries(task).filter(([k]) => !keys.includes(k))));

/** Line number → the reason(s) the validator must give for it. */
const LINES: [string, RegExp | null][] = [
  [line(niah), null],
  ['{"id": "broken", ', /^bad JSON/],
  [without({ ...niah, id: 'no-answer' }, 'answer', 'context'), /missing field "context".*missing field "answer"/],
  [
    JSON.stringify({ ...niah, id: 'types', context_tokens: '12', aliases: 'red' }),
    /field "aliases": expected array, got string.*field "context_tokens": expected number, got string|field "context_tokens": expected number, got string.*field "aliases": expected array, got string/,
  ],
  [line({ ...niah, id: 'wrong-answer', answer: 'zzz', aliases: [] }), /answer "zzz" is not the sub-answer "/],
  ['', /^empty line$/],
  [line(niah), /duplicate id ".*" \(first on line 1\)/],
  [line({ ...niah, id: 'tokens', context_tokens: 3 }), /context_tokens is 3 but estimateTokens\(context\) gives \d+/],
  ['[1, 2]', /expected a JSON object, got array/],
  [JSON.stringify({ ...niah, id: 'extra', difficulty: 'hard' }), /unknown field "difficulty"/],
  [without({ ...niah, id: 'byo', question: 'Who polished it?', answer: 'Agnes' }, 'meta'), null],
  [line({ ...counting, id: 'mislabelled', type: 'niah' }), /question template counting\.q\.\w+ is not a niah template/],
  [line({ ...niah, id: 'no-needles', needle_positions: [] }), /evidence of sub-question 0 is not a needle sentence/],
  [line(withSentence(niah, `Agnes saw the ${niah.meta!.key} at the market.`)), /names ".*" but is no niah frame/],
  [
    line({ ...niah, id: 'family', meta: { ...niah.meta!, phrasing: { ...niah.meta!.phrasing, family: 'heldout' } } }),
    /is not of the heldout family/,
  ],
  [
    line({ ...niah, id: 'needle', needle_positions: [{ start: 0, end: 99_999, depth: 0 }] }),
    /needle_positions\[0\] ends at 99999/,
  ],
  [
    line({ ...niah, id: 'depth', needle_positions: [{ start: 0, end: 5, depth: 2 }] }),
    /field "needle_positions.0.depth"/,
  ],
];

describe('validateTasksFile', () => {
  it('reports every malformed line with its number and reason, without throwing', async () => {
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(file, LINES.map(([text]) => text).join('\n') + '\n');
    const streamed: number[] = [];
    const report = await validateTasksFile(file, {}, (issue) => streamed.push(issue.line));

    const expectedBad = LINES.flatMap(([, reason], i) => (reason === null ? [] : [i + 1]));
    expect(report.lines).toBe(LINES.length);
    expect(report.issues.map((i) => i.line)).toEqual(expectedBad);
    expect(streamed).toEqual(expectedBad);
    expect(report.valid).toBe(2);
    expect(report.structured).toBe(1);
    for (const issue of report.issues)
      expect(issue.reasons.join('; '), `line ${issue.line}`).toMatch(LINES[issue.line - 1][1]!);
  });

  it('skips the checks against meta when asked', async () => {
    const file = join(dir, 'wrong.jsonl');
    writeFileSync(file, `${line({ ...niah, answer: 'zzz', aliases: [] })}\n`);
    expect((await validateTasksFile(file)).issues).toHaveLength(1);
    expect((await validateTasksFile(file, { checkMeta: false })).issues).toHaveLength(0);
  });

  it('fails with a file error, not a crash, when the file cannot be read', async () => {
    const attempt = validateTasksFile(join(dir, 'missing.jsonl'));
    await expect(attempt).rejects.toBeInstanceOf(TasksError);
    await expect(validateTasksFile(join(dir, 'missing.jsonl'))).rejects.toMatchObject({
      code: 'FILE_ACCESS',
    });
  });
});

describe('readTasksJsonl / writeTasksJsonl', () => {
  it('round-trip tasks', async () => {
    const tasks = [...generateTasks({ split: 'heldout', n: 6, seed: 4, minTokens: 512, maxTokens: 2048 })];
    const file = join(dir, 'round.jsonl');
    const written = await writeTasksJsonl(file, tasks);
    expect(written.count).toBe(6);
    const read: Task[] = [];
    for await (const task of readTasksJsonl(file)) read.push(task);
    expect(read).toEqual(tasks);
  });

  it('stop at a bad line naming the file and line', async () => {
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${line(niah)}\n{oops\n`);
    const read = async () => {
      for await (const task of readTasksJsonl(file)) expect(task.id).toBe(niah.id);
    };
    await expect(read()).rejects.toThrow(`${file}:2: bad JSON`);
  });
});
