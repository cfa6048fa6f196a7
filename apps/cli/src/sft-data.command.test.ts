import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { sftDataCommand } from './sft-data.command';

const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-sft-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const jsonLines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

async function runSftData(...args: string[]): Promise<void> {
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  await sftDataCommand().exitOverride().parseAsync(args, { from: 'user' });
}

describe('fathom sft-data --readers-texts-out', () => {
  it("writes each reader's chunk, and nothing of its question or answer, as a text line", async () => {
    const tasks = join(dir, 'tasks.jsonl');
    await writeTasksJsonl(tasks, generateTasks({ split: 'train', n: 2, seed: 3, minTokens: 1024, maxTokens: 2048 }));
    const [readers, texts] = [join(dir, 'readers.jsonl'), join(dir, 'texts.jsonl')];
    await runSftData(
      ...['--tasks', tasks, '--out', join(dir, 'teacher.jsonl'), '--readers', '6', '--readers-out', readers],
      ...['--readers-texts-out', texts, '--no-progress'],
    );
    const reads = jsonLines(readers);
    expect(reads).toHaveLength(6);
    expect(jsonLines(texts)).toEqual(reads.map((r, i) => ({ id: `read${i}`, text: r.chunk })));
  });

  it('refuses --readers-texts-out without the reader curriculum', async () => {
    await expect(
      runSftData('--tasks', 'x.jsonl', '--out', join(dir, 'o.jsonl'), '--readers-texts-out', join(dir, 't.jsonl')),
    ).rejects.toThrow('--readers-texts-out needs --readers and --readers-out');
  });

  it('refuses a tasks file with no tasks before writing anything', async () => {
    const [empty, out] = [join(dir, 'empty.jsonl'), join(dir, 'kept.jsonl')];
    writeFileSync(empty, '');
    writeFileSync(out, 'earlier\n');
    await expect(runSftData('--tasks', empty, '--out', out, '--no-progress')).rejects.toThrow(
      `${empty} holds no tasks`,
    );
    expect(readFileSync(out, 'utf8')).toBe('earlier\n');
  });
});
