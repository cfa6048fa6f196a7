import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, startHarness, type Harness } from '../test-support/harness';
import { mib, processTreeRss } from '../test-support/process-memory';

/**
 * Load (issue 17, item 7): 1,000 HTTP sessions that are opened and never closed. The cap holds with a 429, memory
 * stays under a stated bound, every session expires after IDLE_TIMEOUT_S, and a fresh session's step is as fast
 * beside 1,000 idle ones as on an idle service. bench/env/load.bench.ts measures the same at larger sizes.
 */

const STORM = 1_000;
/** The storm's sessions plus the probe whose step latency is measured beside them. */
const CAPACITY = STORM + 1;
/**
 * Long enough that the first storm session is still open when the last one opens (1,000 opens took 11.7–27 s on one
 * loaded core), short enough that waiting for expiry (up to 1.25x: the service sweeps every IDLE_TIMEOUT_S/4) keeps
 * the test under a minute.
 */
const IDLE_TIMEOUT_S = 30;
const OPEN_CONCURRENCY = 10;
const LATENCY_STEPS = 30;
const WARMUP_STEPS = 30;
const PROBE_CODE = 'print(ctx.length)';

/** Measured with 2 sandbox workers on a 2-core machine, the test pinned to one loaded core. */
const BOUNDS = {
  /**
   * Whole process tree (test + service + sandbox workers) over its idle start, per open session. Measured 1.37–1.39
   * MiB (327 -> 1,701 and 1,712 MiB for 1,000; 1,382 KiB per session for 2,000 in the bench), almost all of it the
   * workers' isolates; 2 MiB leaves about 45% margin.
   */
  peakGrowthPerSessionBytes: 2 * 2 ** 20,
  /** The service process's JS heap after expiry and a full GC, over its idle start. Measured 1.6–2 MiB. */
  heapAfterExpiryGrowthBytes: 16 * 2 ** 20,
  /** Share of the storm's RSS growth still held once every session has expired (see the known failure below). */
  retainedAfterExpiryFraction: 0.25,
};

/** A full GC before each heap reading; vitest's worker runs without --expose-gc, so it is switched on here. */

const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

let h: Harness;
const task = (i: number) => ({ context: `Ledger ${i}: the vault code is ${1000 + i}.`, question: 'Vault code?' });

beforeAll(async () => {
  h = await startHarness({
    MAX_CONCURRENT_ENVS: String(CAPACITY),
    IDLE_TIMEOUT_S: String(IDLE_TIMEOUT_S),
    SANDBOX_WORKERS: '2',
    MAX_STEPS: String(WARMUP_STEPS + LATENCY_STEPS),
  });
});

afterAll(async () => {
  await h?.close();
});

async function openSession(i: number): Promise<string> {
  const reply = await post(h.baseUrl, '/reset', task(i));
  if (reply.status !== 200) throw new Error(`reset ${i} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return reply.body.observation.episode_id;
}

/**
 * Median round trip of LATENCY_STEPS HTTP steps on one session, after WARMUP_STEPS unmeasured ones (a fresh process's
 * first steps are several times slower while code is compiled and connections open).
 */
async function medianStepMs(id: string): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP_STEPS + LATENCY_STEPS; i++) {
    const started = performance.now();
    const reply = await post(h.baseUrl, '/step', { episode_id: id, action: { code: PROBE_CODE } });
    if (i >= WARMUP_STEPS) samples.push(performance.now() - started);
    expect(reply.status).toBe(200);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

function heapUsed(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

describe('1,000 sessions that never close', () => {
  const measured: Record<string, number> = {};
  let ids: string[] = [];
  let idleRss = 0;
  let peakRss = 0;
  let rssAfterExpiry = 0;
  let idleHeap = 0;
  let idleStepMs = 0;
  let lastOpenedAt = 0;

  it('an idle service answers a fresh session in a baseline step time', async () => {
    const probe = await openSession(-1);
    idleStepMs = await medianStepMs(probe);
    await post(h.baseUrl, '/close', { episode_id: probe });
    idleHeap = heapUsed();
    idleRss = processTreeRss().totalBytes;
    Object.assign(measured, { idle_step_p50_ms: idleStepMs, idle_rss_mib: mib(idleRss), idle_heap_mib: mib(idleHeap) });
  });

  it('opens 1,000 sessions that all stay open, under the memory bound', async () => {
    const started = performance.now();
    peakRss = idleRss;
    for (let i = 0; i < STORM; i += OPEN_CONCURRENCY) {
      const batch = Array.from({ length: Math.min(OPEN_CONCURRENCY, STORM - i) }, (_, j) => openSession(i + j));
      ids.push(...(await Promise.all(batch)));
      if (i % 100 === 0) peakRss = Math.max(peakRss, processTreeRss().totalBytes);
    }
    lastOpenedAt = performance.now();
    peakRss = Math.max(peakRss, processTreeRss().totalBytes);
    ids = [...new Set(ids)];
    expect(ids).toHaveLength(STORM);
    measured.storm_s = (lastOpenedAt - started) / 1000;
    measured.peak_rss_mib = mib(peakRss);
    expect(measured.storm_s, 'the storm must finish before its first session idles out').toBeLessThan(IDLE_TIMEOUT_S);

    expect((await get(h.baseUrl, '/capabilities')).body.active_sessions).toBe(STORM);
    expect(peakRss - idleRss).toBeLessThan(STORM * BOUNDS.peakGrowthPerSessionBytes);
  });

  it('a fresh session beside them steps within 2x of the idle service; one more is a 429 naming the limit', async () => {
    const probe = await openSession(STORM);
    const refused = await post(h.baseUrl, '/reset', task(STORM + 1));
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({
      code: 'CAPACITY_REACHED',
      message: expect.stringContaining('MAX_CONCURRENT_ENVS'),
    });

    const loadedStepMs = await medianStepMs(probe);
    measured.loaded_step_p50_ms = loadedStepMs;
    expect(loadedStepMs).toBeLessThan(2 * idleStepMs);
    await post(h.baseUrl, '/close', { episode_id: probe });
  });

  it('every session expires after IDLE_TIMEOUT_S and the service heap comes back down', async () => {
    const deadline = lastOpenedAt + IDLE_TIMEOUT_S * 1000 * 1.5 + 2_000;
    while (h.service.episodes.liveCount > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    measured.expired_after_last_open_s = (performance.now() - lastOpenedAt) / 1000;
    expect(h.service.episodes.liveCount).toBe(0);
    for (const id of [ids[0], ids[STORM / 2], ids[STORM - 1]]) {
      const state = await get(h.baseUrl, `/state?episode_id=${id}`);
      expect(state.status).toBe(404);
      expect(state.body.code).toBe('EPISODE_NOT_FOUND');
      const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code: PROBE_CODE } });
      expect(step.status).toBe(404);
    }
    // Measured once a fresh session runs again: the replaced sandbox workers are back and warm.
    for (const i of [0, 1]) {
      const id = await openSession(i);
      const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code: PROBE_CODE } });
      expect(step.status).toBe(200);
      await post(h.baseUrl, '/close', { episode_id: id });
    }
    const heapAfter = heapUsed();
    rssAfterExpiry = processTreeRss().totalBytes;
    measured.rss_after_expiry_mib = mib(rssAfterExpiry);
    measured.heap_growth_after_expiry_mib = mib(heapAfter - idleHeap);
    expect(heapAfter - idleHeap).toBeLessThan(BOUNDS.heapAfterExpiryGrowthBytes);
  });

  // Every isolate is disposed at expiry, but V8 keeps the memory (1,000 bare isolates created and disposed in one
  // process: 81 -> 1,402 -> 1,070 MiB; laverdet/isolated-vm#281). Before workers were recycled this kept 56-64% of the
  // growth; the sandbox pool now replaces a worker that hosted `recycleAfterEpisodes` episodes once it is empty.
  it('the sandbox workers give most of that memory back once every session has expired', () => {
    console.log(JSON.stringify({ test: 'env-service load', ...measured }));
    expect(rssAfterExpiry - idleRss).toBeLessThan(BOUNDS.retainedAfterExpiryFraction * (peakRss - idleRss));
  });
});
