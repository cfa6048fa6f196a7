/**
 * env-service load benchmark (issue 17, item 7): `--sessions` HTTP sessions opened and never closed, in `--cycles`
 * rounds. Per round: open rate, RSS of the process tree (this process, which runs the service, plus its sandbox
 * workers) before, at the peak and after every session expired, step latency of a fresh session on the idle service
 * and beside the idle sessions, and how long after the last open every session was gone.
 *
 *   node --no-node-snapshot --import tsx bench/env/load.bench.ts [--sessions 2000] [--cycles 2] [--idle-timeout-s 60]
 *
 * Prints one JSON object per measurement.
 */
import { loadConfig, mib, processTreeRss, ScriptedInferenceServer, startEnvService } from '@fathom/env-service';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '2000' },
    cycles: { type: 'string', default: '2' },
    'idle-timeout-s': { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '16' },
    steps: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '30' },
    workers: { type: 'string', default: '2' },
  },
});
const SESSIONS = Number(args.sessions);
const CYCLES = Number(args.cycles);
const IDLE_TIMEOUT_S = Number(args['idle-timeout-s']);
const CONCURRENCY = Number(args.concurrency);
const STEPS = Number(args.steps);
const WARMUP = Number(args.warmup);
const WORKERS = Number(args.workers);
const PROBE_CODE = 'print(ctx.length)';

/** A reply as the benchmark reads it (only a few fields are checked). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const env = { node: process.version, cpus: cpus().length, sandbox_workers: WORKERS, sessions: SESSIONS };
const emit = (record: Record<string, unknown>) =>
  console.log(JSON.stringify({ bench: 'env-service-load', ...record, ...env, loadavg_1m: loadavg()[0] }));
const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

function percentiles(samplesMs: number[]) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return { n: sorted.length, p50_ms: round(q(0.5)), p99_ms: round(q(0.99)) };
}

function memory() {
  const tree = processTreeRss();
  return {
    total_mib: mib(tree.totalBytes),
    service_mib: mib(tree.selfBytes),
    workers_mib: Object.values(tree.childBytes).map(mib),
    heap_used_mib: mib(process.memoryUsage().heapUsed),
  };
}

async function main(): Promise<void> {
  const inference = new ScriptedInferenceServer(() => 'unused');
  const service = await startEnvService(
    loadConfig({
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      INFERENCE_ADDRESS: await inference.start(),
      LOG_LEVEL: 'silent',
      SANDBOX_WORKERS: String(WORKERS),
      MAX_CONCURRENT_ENVS: String(SESSIONS + 1),
      IDLE_TIMEOUT_S: String(IDLE_TIMEOUT_S),
      MAX_STEPS: String(WARMUP + STEPS),
    }),
  );
  const base = `http://127.0.0.1:${service.httpPort}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const open = async (i: number): Promise<string> => {
    const reply = await post('/reset', { context: `Ledger ${i}: the vault code is ${1000 + i}.`, question: 'Code?' });
    if (reply.status !== 200) throw new Error(`reset ${i} answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body.observation.episode_id;
  };
  /** Step latency of a fresh session (opened, measured, closed). */
  const probe = async () => {
    const id = await open(-1);
    const samples: number[] = [];
    for (let i = 0; i < WARMUP + STEPS; i++) {
      const started = performance.now();
      const reply = await post('/step', { episode_id: id, action: { code: PROBE_CODE } });
      if (reply.status !== 200) throw new Error(`probe step answered ${reply.status}`);
      if (i >= WARMUP) samples.push(performance.now() - started);
    }
    await post('/close', { episode_id: id });
    return percentiles(samples);
  };

  try {
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const idleLatency = await probe();
      const before = memory();
      emit({ metric: 'step_latency', cycle, beside_idle_sessions: 0, ...idleLatency });

      const started = performance.now();
      let peak = before;
      for (let i = 0; i < SESSIONS; i += CONCURRENCY) {
        await Promise.all(Array.from({ length: Math.min(CONCURRENCY, SESSIONS - i) }, (_, j) => open(i + j)));
        if (i % 200 === 0) peak = maxMemory(peak, memory());
      }
      const lastOpenedAt = performance.now();
      peak = maxMemory(peak, memory());
      const openS = (lastOpenedAt - started) / 1000;
      const expiredDuringOpen = SESSIONS - service.episodes.liveCount;
      // With every session still open the service is at capacity less the probe's slot: fill that, then one more.
      const probeSlot = await open(SESSIONS);
      const refused = await post('/reset', { context: 'one too many', question: 'q' });
      if (refused.status === 200) await post('/close', { episode_id: refused.body.observation.episode_id });
      await post('/close', { episode_id: probeSlot });
      emit({
        metric: 'open',
        cycle,
        opened: SESSIONS,
        open_s: round(openS),
        opens_per_s: Math.round(SESSIONS / openS),
        capacity_refusal: `${refused.status} ${refused.body.code ?? ''}`.trim(),
        expired_during_open: expiredDuringOpen,
      });

      const beside = service.episodes.liveCount;
      emit({ metric: 'step_latency', cycle, beside_idle_sessions: beside, ...(await probe()) });

      while (service.episodes.liveCount > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const expiredS = (performance.now() - lastOpenedAt) / 1000;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      emit({
        metric: 'memory',
        cycle,
        idle_timeout_s: IDLE_TIMEOUT_S,
        all_expired_after_last_open_s: round(expiredS, 1),
        before,
        peak,
        after_expiry: memory(),
        peak_growth_per_session_kib: Math.round(((peak.total_mib - before.total_mib) * 1024) / SESSIONS),
      });
    }
  } finally {
    await service.close();
    await inference.stop();
  }
}

/** The larger of two readings, field by field for the totals (workers' list from the larger total). */
function maxMemory(a: ReturnType<typeof memory>, b: ReturnType<typeof memory>): ReturnType<typeof memory> {
  return b.total_mib > a.total_mib ? { ...b, heap_used_mib: Math.max(a.heap_used_mib, b.heap_used_mib) } : a;
}

await main();
