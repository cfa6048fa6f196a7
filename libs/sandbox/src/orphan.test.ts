import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isRunning } from '@fathom/runtime/testing';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./orphan.fixture.ts', import.meta.url));

describe('a supervisor killed with SIGKILL', () => {
  it('takes its sandbox workers with it, the one busy in an uninterruptible step included', async () => {
    const supervisor = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', FIXTURE], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(createInterface({ input: supervisor.stdout! }), 'line')) as [string];
      const { workers } = JSON.parse(line) as { workers: number[] };
      expect(workers).toHaveLength(2);
      expect(workers.every(isRunning)).toBe(true);
      supervisor.kill('SIGKILL');
      await once(supervisor, 'exit');
      const deadline = Date.now() + 3_000;
      while (workers.some(isRunning) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(workers.filter(isRunning)).toEqual([]);
    } finally {
      supervisor.kill('SIGKILL');
    }
  }, 60_000);
});
