import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const FIXTURE = fileURLToPath(new URL('./recycle.fixture.ts', import.meta.url));

describe('a worker recycled while a script waits for it', () => {
  it('is replaced before the process can run out of work: every episode runs and the script exits cleanly', async () => {
    const script = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', FIXTURE], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    script.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    script.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(script, 'exit')) as [number | null];
    expect({ code, stderr: stderr.trim() }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toMatchObject({ ran: 6 });
    expect(JSON.parse(stdout).recycled).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
