import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateTasks } from '@fathom/tasks';
import { afterAll, describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/fathom', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-ask-default-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('fathom ask with the shipped default model', () => {
  it('answers a question stated once in a generated 1 MB document, the answer read by the span head', () => {
    const [task] = generateTasks({
      split: 'heldout',
      n: 1,
      seed: 1,
      minTokens: 240_000,
      maxTokens: 260_000,
      mix: { niah: 1 },
    });
    expect(task.context.length).toBeGreaterThan(900_000);
    expect(task.context.split(task.answer)).toHaveLength(2); // stated once
    const file = join(dir, 'doc.txt');
    writeFileSync(file, task.context);
    const result = spawnSync(bin, ['ask', '--file', file, '--trace', '--no-progress', task.question], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines.at(-1)).toBe(task.answer);
    expect(lines.some((l) => l.includes(`llm() leaf`) && l.includes(`→ "${task.answer}" [span head:`))).toBe(true);
  }, 120_000);
});
