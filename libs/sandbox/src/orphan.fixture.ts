/**
 * A supervisor for orphan.test.ts: starts a pool of two workers, leaves one of them busy in a step V8 cannot
 * interrupt, prints its workers' pids as one JSON line, and waits to be killed.
 */
import { SandboxPool } from './pool';

const pool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 1 });
const busy = await pool.openEpisode({ ctx: '', limits: { stepWallMs: 60_000, stepCpuMs: 60_000 } });
void busy.run('7n ** 60000000n');
process.stdout.write(`${JSON.stringify({ workers: pool.stats().workers.map((w) => w.pid) })}\n`);
setInterval(() => undefined, 60_000);
