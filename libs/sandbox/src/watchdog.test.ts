import { describe, expect, it } from 'vitest';
import { SandboxPool } from './pool';

// A huge BigInt power runs in V8 code that never checks for interrupts: disposing the isolate at the wall limit
// does not stop it, so before the pool's own deadline such a step came back only when the power was done (tens of
// seconds). 7n ** 100000000n takes about 5 s on this machine's core (7n ** 30000000n came down to 1.4 s, inside the
// 300 ms grace of the kill test below); the pool steps in at its deadline, 250 ms + 1 s.
const STUCK = '7n ** 100000000n';
const LIMITS = { stepWallMs: 250, stepCpuMs: 250 };

async function withPool(graceMs: number, body: (pool: SandboxPool) => Promise<void>): Promise<void> {
  const pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1, stuckWorkerGraceMs: graceMs });
  try {
    await body(pool);
  } finally {
    await pool.close();
  }
}

describe('a step stuck in code V8 cannot interrupt', () => {
  it('is not what a step becomes when this process stalls past the deadline while the reply waits unread', async () => {
    await withPool(60_000, async (pool) => {
      const episode = await pool.openEpisode({ ctx: 'quiet', limits: LIMITS });
      const step = episode.run('print(ctx)');
      // A few microtask turns send the step. The worker answers within a millisecond or so; this loop then holds the
      // event loop past the 1 250 ms deadline, as a burst of request bodies parsed at once does in the env-service.
      for (let i = 0; i < 10; i++) await Promise.resolve();
      const until = performance.now() + 1_500;
      while (performance.now() < until);
      expect(await step).toMatchObject({ error: null, stdout: 'quiet\n', alive: true });
      expect(pool.stats().totals.stuckSteps).toBe(0);
      expect(pool.stats().workers[0].draining).toBe(false);
    });
  });

  it('comes back as a timeout by the pool deadline; the worker drains, then is replaced', async () => {
    await withPool(60_000, async (pool) => {
      const bystander = await pool.openEpisode({ ctx: 'bystander' });
      const episode = await pool.openEpisode({ ctx: '', limits: LIMITS });
      const started = performance.now();
      const result = await episode.run(STUCK);
      const elapsed = performance.now() - started;
      expect(result).toMatchObject({
        error: { code: 'timeout', message: expect.stringContaining('wall-time limit of 250 ms') },
        alive: false,
        brokeWorker: true,
      });
      // The 1 250 ms deadline, plus timer and IPC slack on a shared core.
      expect(elapsed).toBeGreaterThanOrEqual(1_250);
      expect(elapsed).toBeLessThan(1_700);
      expect(result.wallMs).toBeCloseTo(elapsed, -2);
      const after = await episode.run('1');
      expect(after.error?.code).toBe('timeout');
      expect(after.brokeWorker).toBeUndefined();
      const [draining] = pool.stats().workers;
      expect(draining).toMatchObject({ draining: true, activeEpisodes: 1 });
      expect(pool.stats().totals).toMatchObject({ stuckSteps: 1, timeouts: 1 });

      // The bystander on the same worker keeps its REPL while the worker drains.
      expect(await bystander.run('print(ctx)')).toMatchObject({ error: null, stdout: 'bystander\n' });
      // Its last episode gone, the draining worker is killed at once (not after the 60 s grace) and replaced.
      await bystander.close();
      await expect.poll(() => pool.stats().restarts, { timeout: 5_000 }).toBe(1);
      await expect.poll(() => pool.stats().workers[0].ready, { timeout: 10_000 }).toBe(true);
      expect(pool.stats().workers[0].draining).toBe(false);
      expect(pool.stats().workers[0].pid).not.toBe(draining.pid);
      const fresh = await pool.openEpisode({ ctx: 'fresh' });
      expect((await fresh.run('print(ctx)')).stdout).toBe('fresh\n');
      expect(pool.stats().totals.crashedEpisodes).toBe(0);
    });
  });

  it('kills the worker after the grace period, ending the episodes still on it', async () => {
    await withPool(300, async (pool) => {
      const bystander = await pool.openEpisode({ ctx: 'bystander' });
      const episode = await pool.openEpisode({ ctx: '', limits: LIMITS });
      expect((await episode.run(STUCK)).error?.code).toBe('timeout');
      await expect.poll(() => pool.stats().restarts, { timeout: 5_000 }).toBe(1);
      const lost = await bystander.run('print(ctx)');
      expect(lost.error).toMatchObject({ code: 'worker_crashed', message: expect.stringMatching(/SIGKILL/) });
      // Idle when its worker was killed: nothing it ran broke it.
      expect(lost.brokeWorker).toBeUndefined();
      expect(pool.stats().totals.crashedEpisodes).toBe(1);
    });
  });

  it('forgives the worker when the stuck step comes back within the grace period', async () => {
    await withPool(60_000, async (pool) => {
      const bystander = await pool.openEpisode({ ctx: 'bystander' });
      const episode = await pool.openEpisode({ ctx: '', limits: { stepWallMs: 50, stepCpuMs: 50 } });
      // About two seconds of uninterruptible work here: past the 1 050 ms deadline, well within the grace.
      expect((await episode.run('7n ** 40000000n')).error?.code).toBe('timeout');
      expect(pool.stats().workers[0].draining).toBe(true);
      await expect.poll(() => pool.stats().workers[0].draining, { timeout: 30_000 }).toBe(false);
      expect(pool.stats().restarts).toBe(0);
      expect((await bystander.run('print(ctx)')).stdout).toBe('bystander\n');
    });
  });

  it('also stops a string bomb that outgrows the heap limit without ever reaching it', async () => {
    await withPool(60_000, async (pool) => {
      const episode = await pool.openEpisode({ ctx: '', limits: { stepWallMs: 500, stepCpuMs: 500 } });
      const started = performance.now();
      // Building a flat 100M-character string: the worker's RSS grows past the isolate's 128 MiB and its step
      // did not come back within 40 s before the pool's deadline. Now the pool's deadline (a timeout) or the
      // process-level memory cap (memory_limit; see memory-cap.test.ts), whichever comes first, ends it.
      const result = await episode.run('answer("x".repeat(1e8).replace(/x/g, "y"))');
      expect(['timeout', 'memory_limit']).toContain(result.error?.code);
      expect(result.brokeWorker).toBe(true);
      expect(performance.now() - started).toBeLessThan(2_000);
      await expect.poll(() => pool.stats().restarts, { timeout: 5_000 }).toBe(1);
    });
  });

  it('does not count time spent waiting in llm() toward the deadline', async () => {
    await withPool(60_000, async (pool) => {
      const llm = async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        return { text: 'slow', promptTokens: 1, completionTokens: 1 };
      };
      const episode = await pool.openEpisode({ ctx: '', limits: LIMITS, llm });
      const result = await episode.run('print(llm("q"))');
      expect(result).toMatchObject({ error: null, stdout: 'slow\n' });
      expect(pool.stats()).toMatchObject({ restarts: 0, totals: { stuckSteps: 0 } });
    });
  });
});
