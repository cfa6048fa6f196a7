import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { TasksError } from '@fathom/tasks';
import { dataCommand } from '../data.command';

const bin = fileURLToPath(new URL('../../bin/fathom', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-cli-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  vi.restoreAllMocks();
  process.exitCode = undefined;
});

/** Runs `fathom data …` in this process and returns what it printed to stdout. */
async function runData(...args: string[]): Promise<string> {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...parts: unknown[]) => void printed.push(parts.join(' ')));
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  await dataCommand().exitOverride().parseAsync(args, { from: 'user' });
  return printed.join('\n');
}

/** Runs the real binary (for exit codes and what reaches the terminal). */
function fathom(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: result.status, output: result.stdout + result.stderr };
}

/** A Node stack trace line ("    at fn (file:line:col)"). */
const STACK = /^\s+at .+:\d+:\d+\)?$/m;

describe('fathom data', () => {
  const generateArgs = ['--split', 'eval', '--n', '12', '--seed', '9', '--min-tokens', '512', '--max-tokens', '2048'];
  const [a, b] = [join(dir, 'a.jsonl'), join(dir, 'b.jsonl')];

  it('generate is deterministic; stats and validate accept its output', async () => {
    await runData('generate', ...generateArgs, '--out', a);
    await runData('generate', ...generateArgs, '--out', b, '--no-progress');
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);

    const stats = JSON.parse(await runData('stats', a, '--json')) as { tasks: number; byType: Record<string, number> };
    expect(stats.tasks).toBe(12);
    expect(Object.values(stats.byType).reduce((x, y) => x + y, 0)).toBe(12);
    expect(await runData('stats', a)).toMatch(/context tokens \(estimateTokens\): min [\d,]+ {2}median/);

    expect(await runData('validate', a)).toContain('12 lines, 12 valid, 0 bad, text checked against meta for 12');
    expect(process.exitCode ?? 0).toBe(0);
  });

  it('generate --invented-share writes invented frames that validate against meta; a bad share is refused', async () => {
    const invented = join(dir, 'invented.jsonl');
    await runData('generate', ...generateArgs, '--invented-share', '1', '--invented-distractor-share', '1', '--out', invented);
    const frames = readFileSync(invented, 'utf8')
      .trim()
      .split('\n')
      .flatMap((line) => (JSON.parse(line) as { meta: { frames: string[] } }).meta.frames);
    expect(frames.some((id) => id.endsWith('.invented'))).toBe(true);
    expect(await runData('validate', invented)).toContain('12 lines, 12 valid, 0 bad');

    const bad = fathom('data', 'generate', ...generateArgs, '--invented-share', '1.5', '--out', join(dir, 'y.jsonl'));
    expect(bad.status).not.toBe(0);
    expect(bad.output).toContain('--invented-share must be a number in [0, 1], got "1.5"');
    expect(bad.output).not.toMatch(STACK);
  });

  it('rejects unusable generation arguments with a TasksError', async () => {
    await expect(runData('generate', '--split', 'train', '--mix', 'essays=1', '--out', join(dir, 'x.jsonl'))).rejects.toThrow(
      TasksError,
    );
  });

  it('validate lists every bad line and exits 1; unreadable files fail in one line; no stack traces', () => {
    const good = readFileSync(a, 'utf8').split('\n')[0];
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, [good, '{nope', '{"id": "x"}', good].join('\n') + '\n');
    const result = fathom('data', 'validate', file);
    expect(result.status).toBe(1);
    expect(result.output).toContain(`${file}:2: bad JSON`);
    expect(result.output).toContain(`${file}:3: missing field "split"`);
    expect(result.output).toContain(`${file}:4: duplicate id`);
    expect(result.output).toContain('4 lines, 1 valid, 3 bad');

    const missing = fathom('data', 'validate', join(dir, 'missing.jsonl'));
    expect(missing.status).toBe(1);
    expect(missing.output).toContain('ENOENT');
    expect(result.output + missing.output).not.toMatch(STACK);
  });
});
