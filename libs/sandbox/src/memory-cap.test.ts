import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { residentMb, stepAllowanceMb } from './memory-cap';
import { SandboxPool } from './pool';

// `new Array(2 ** 31).fill(1)` and an array of arrays grow the worker outside the isolate's heap limit, in code V8
// does not interrupt: before the process-level cap, a 128 MiB guest took its worker past 1.4 GB (3.3 GB for the
// arrays) until the stuck-step kill, and the step was reported as a `timeout`.
describe('the process-level memory cap', () => {
  const memoryMb = 32;
  let pool: SandboxPool;

  beforeAll(async () => {
    pool = await SandboxPool.start({
      workers: 2,
      warmIsolatesPerWorker: 1,
      defaults: { memoryMb, stepCpuMs: 30_000 },
    });
  });
  afterAll(() => pool.close());

  it.each([
    ['a sparse array filled', 'new Array(2 ** 31).fill(1)'],
    ['an array of arrays', 'const a = []; while (true) a.push(new Array(1000).fill(1.5))'],
  ])('%s is stopped near its cap with memory_limit; a guest on the other worker keeps stepping', async (_, bomb) => {
    await expect.poll(() => pool.stats().workers.every((w) => w.ready)).toBe(true);
    const bystander = await pool.openEpisode({ ctx: 'bystander', limits: { maxSteps: 1e6 } });
    try {
      const bystanderPid = pool.stats().workers.find((w) => w.activeEpisodes === 1)!.pid;
      // Without the cap, the stuck-step deadline (twice the wall limit) ends it as a `timeout` after 6 s.
      const attacker = await pool.openEpisode({ ctx: '', limits: { stepWallMs: 3_000 } });
      const pid = pool.stats().workers.find((w) => w.pid !== bystanderPid)!.pid!;
      const before = residentMb(pid)!;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, residentMb(pid) ?? peak)), 5);
      let done = false;
      const bystanding = (async () => {
        let n = 0;
        while (!done) expect((await bystander.run(`print(${++n})`)).stdout).toBe(`${n}\n`);
        return n;
      })();
      const result = await attacker.run(bomb).finally(() => {
        done = true;
        clearInterval(sampler);
      });
      expect(result).toMatchObject({ error: { code: 'memory_limit' }, alive: false, brokeWorker: true });
      expect(result.error?.message).toMatch(/memory limit of 32 MiB/);
      // Stopped within a few checks (20 ms each) of its allowance, far below the 1.4 GB it reached without the cap. A
      // loaded machine delays a check: one CI run peaked at 145.6 MB against a bound of one check's growth, 144.
      expect(peak - before).toBeLessThan(stepAllowanceMb(memoryMb) + 64);
      expect(await bystanding).toBeGreaterThan(0);
      expect(pool.stats().workers.map((w) => w.pid)).toContain(bystanderPid);
      expect(pool.stats().totals.memoryLimits).toBeGreaterThan(0);
    } finally {
      await bystander.close();
    }
    const fresh = await pool.openEpisode({ ctx: 'fresh' });
    expect((await fresh.run('print(ctx)')).stdout).toBe('fresh\n');
    await fresh.close();
  });

  it('ends an episode idle beside the guest on its worker with worker_crashed, saying why', async () => {
    const single = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1, defaults: { memoryMb } });
    try {
      const neighbour = await single.openEpisode({ ctx: 'neighbour' });
      const attacker = await single.openEpisode({ ctx: '' });
      expect((await attacker.run('new Array(2 ** 31).fill(1)')).error?.code).toBe('memory_limit');
      const after = await neighbour.run('print(ctx)');
      expect(after.error).toMatchObject({ code: 'worker_crashed' });
      expect(after.error?.message).toMatch(/killed for outgrowing the memory allowed to the step running in it/);
      expect(single.stats().totals).toMatchObject({ memoryLimits: 1, crashedEpisodes: 1 });
    } finally {
      await single.close();
    }
  });

  it('leaves guests that the heap limit stops, or that stay under it, to the heap limit', async () => {
    await expect.poll(() => pool.stats().workers.every((w) => w.ready)).toBe(true);
    const { restarts } = pool.stats();
    const episodes = await Promise.all(
      [0, 1, 2, 3].map(() => pool.openEpisode({ ctx: 'x'.repeat(100_000), limits: { stepWallMs: 20_000 } })),
    );
    const [fits, ...grows] = await Promise.all([
      episodes[0]!.run('const a = []; for (let i = 0; i < 20; i++) a.push(ctx.repeat(10) + i); print(a.length)'),
      ...episodes.slice(1).map((e) => e.run('const a = []; while (true) a.push(ctx.repeat(10) + a.length)')),
    ]);
    expect(fits).toMatchObject({ error: null, stdout: '20\n' });
    for (const result of grows) expect(result).toMatchObject({ error: { code: 'memory_limit' } });
    for (const result of grows) expect(result.brokeWorker).toBeUndefined();
    expect(pool.stats().restarts).toBe(restarts);
    await Promise.all(episodes.map((e) => e.close()));
  });
});
