import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import type { EvalEpisode, EvalSuiteReport } from '@fathom/rlm';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { evalCommand } from './eval.command';

const checkpoint = fileURLToPath(new URL('../../../data/checkpoints/default-sft', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-eval-'));
const tasksFile = join(dir, 'tasks.jsonl');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** Runs `fathom eval …` in this process and returns what it printed to stdout. */
async function runEval(...args: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
  await evalCommand().exitOverride().parseAsync(args, { from: 'user' });
  return printed.join('\n');
}

describe('fathom eval', () => {
  it('reports the default policy and its three baselines on the same tasks, with every episode in a JSONL file', async () => {
    await writeTasksJsonl(
      tasksFile,
      generateTasks({ split: 'heldout', n: 3, seed: 5, minTokens: 1024, maxTokens: 4096 }),
    );
    const [out, episodes] = [join(dir, 'report.json'), join(dir, 'episodes.jsonl')];
    const printed = await runEval(
      ...['--checkpoint', checkpoint, '--tasks', tasksFile, '--max-turns', '2', '--max-turn-tokens', '96'],
      ...['--out', out, '--episodes', episodes, '--no-progress'],
    );
    expect(printed).toMatch(/^group\s+n\s+policy\s+regex\s+no-llm\s+oracle$/m);
    expect(printed).toMatch(/^overall\s+3\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%\s+[\d.]+%$/m);
    expect(printed).toMatch(/^oracle overall\s+3\s/m);

    const report = JSON.parse(readFileSync(out, 'utf8')) as EvalSuiteReport & { tasksFile: string };
    expect(report.tasksFile).toBe(tasksFile);
    expect(report.systems.map((s) => [s.system, s.runs.length, s.runs[0].tasks.length])).toEqual([
      ['policy', 1, 3],
      ['regex', 1, 3],
      ['no-llm', 1, 3],
      ['oracle', 1, 3],
    ]);
    const records = readFileSync(episodes, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EvalEpisode & { system: string });
    expect(records).toHaveLength(12);
    const policyRecords = records.filter((r) => r.system === 'policy');
    expect(policyRecords.every((r) => r.turns.length >= 1 && typeof r.turns[0].completion === 'string')).toBe(true);
    expect(policyRecords.map((r) => r.correct)).toEqual(report.systems[0].runs[0].tasks.map((t) => t.correct));
  }, 60_000);

  it('measures leaf reads alone with --n 0 --readers, in the table and the JSON report', async () => {
    const out = join(dir, 'readers.json');
    const printed = await runEval(
      '--checkpoint',
      checkpoint,
      '--n',
      '0',
      '--readers',
      '4',
      '--readers-max-chunk',
      '400',
      '--out',
      out,
      '--no-progress',
    );
    expect(printed).toMatch(/^leaf reads \(greedy, seed 0\)$/m);
    expect(printed).toMatch(/^\| all \| [\d.]+% \(\d\/4\) \|$/m);
    const report = JSON.parse(readFileSync(out, 'utf8')) as {
      readers: { overall: { n: number }; mistakes: { chunkChars: number }[] }[];
      systems?: unknown;
    };
    expect(report.readers.map((r) => r.overall.n)).toEqual([4]);
    expect(report.readers[0].mistakes.every((m) => m.chunkChars <= 400)).toBe(true);
    expect(report.systems).toBeUndefined();
  }, 60_000);

  it('refuses several seeds when greedy and an unknown baseline', async () => {
    await expect(runEval('--checkpoint', checkpoint, '--seeds', '0,1')).rejects.toThrow(/needs --mode sampled/);
    await expect(runEval('--checkpoint', checkpoint, '--baselines', 'regex,judge')).rejects.toThrow(/unknown judge/);
  });
});
