import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRunning } from './testing';

const FIXTURE = fileURLToPath(new URL('./parent-gone.fixture.ts', import.meta.url));

describe('a service whose launcher is killed with SIGKILL', () => {
  it('shuts itself down, even in a process group of its own', async () => {
    const parent = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', FIXTURE, 'parent'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let servicePid = 0;
    try {
      const [line] = (await once(createInterface({ input: parent.stdout! }), 'line')) as [string];
      servicePid = Number(line);
      expect(isRunning(servicePid)).toBe(true);
      parent.kill('SIGKILL');
      await once(parent, 'exit');
      const deadline = Date.now() + 5_000;
      while (isRunning(servicePid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(isRunning(servicePid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      if (servicePid > 0 && isRunning(servicePid)) process.kill(servicePid, 'SIGKILL');
    }
  }, 60_000);
});
