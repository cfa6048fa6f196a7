/**
 * In-process sandbox benchmark: the SandboxPool driven directly (no HTTP/WS/gRPC), as the env-service uses it.
 * Prints one JSON line per measurement. Run:
 *   node --no-node-snapshot --import tsx bench/env/sandbox.bench.ts [--steps 500] [--workers 2]
 */
import { SandboxPool, type SandboxEpisode } from '@fathom/sandbox';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    steps: { type: 'string', default: '500' },
    resets: { type: 'string', default: '200' },
    workers: { type: 'string', default: '2' },
    warm: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '64' },
    'steps-per-episode': { type: 'string', default: '20' },
  },
});
const STEPS = Number(values.steps);
const RESETS = Number(values.resets);
const WORKERS = Number(values.workers);
const WARM = Number(values.warm);
const CONCURRENCY = Number(values.concurrency);
const STEPS_PER_EPISODE = Number(values['steps-per-episode']);
const CHARS_PER_TOKEN = 4;
const NEEDLE = 'The secret code of the vault is 48213.';
const SEARCH = 'const m = ctx.match(/secret code of the vault is (\\d+)/); print(m ? m[1] : "none")';

/** Deterministic filler (LCG over a small vocabulary) with the needle at 60% depth. */
function makeContext(tokens: number): string {
  const words = ['river', 'stone', 'lamp', 'mirror', 'orchard', 'signal', 'harbor', 'copper', 'meadow', 'ledger'];
  let state = 12345;
  const parts: string[] = [];
  let length = 0;
  const target = tokens * CHARS_PER_TOKEN;
  let needlePlaced = false;
  while (length < target) {
    if (!needlePlaced && length >= target * 0.6) {
      parts.push(NEEDLE);
      length += NEEDLE.length + 1;
      needlePlaced = true;
      continue;
    }
    state = (state * 1103515245 + 12345) >>> 0;
    const word = words[state % words.length];
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, target);
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    n: samples.length,
    p50_ms: round(quantile(sorted, 0.5)),
    p99_ms: round(quantile(sorted, 0.99)),
    mean_ms: round(mean),
  };
}

function emit(record: Record<string, unknown>): void {
  const config = { workers: WORKERS, warm_isolates_per_worker: WARM, loadavg_1m: loadavg()[0] };
  console.log(JSON.stringify({ bench: 'sandbox', transport: 'in_process', ...record, ...config }));
}

async function check(episode: SandboxEpisode): Promise<void> {
  const result = await episode.run(SEARCH);
  if (result.error || result.stdout !== '48213\n') throw new Error(`search failed: ${JSON.stringify(result)}`);
}

const pool = await SandboxPool.start({
  workers: WORKERS,
  warmIsolatesPerWorker: WARM,
  defaults: { maxSteps: 1_000_000, episodeCpuMs: 10_000_000 },
});
try {
  for (const tokens of [16_000, 200_000]) {
    const ctx = makeContext(tokens);

    const episode = await pool.openEpisode({ ctx });
    for (let i = 0; i < 20; i++) await check(episode);
    const wall: number[] = [];
    const cpu: number[] = [];
    const started = performance.now();
    for (let i = 0; i < STEPS; i++) {
      const t0 = performance.now();
      const result = await episode.run(SEARCH);
      wall.push(performance.now() - t0);
      cpu.push(result.cpuMs);
    }
    const elapsed = performance.now() - started;
    await episode.close();
    emit({
      metric: 'step_latency',
      context_tokens: tokens,
      context_chars: ctx.length,
      program: 'regex_search',
      ...summary(wall),
      steps_per_s: Math.round((STEPS / elapsed) * 1000),
      sandbox_cpu_p50_ms: summary(cpu).p50_ms,
    });

    // Without a ctxKey every open ships the document to the worker; with one, repeats send only the key.
    for (const ctxKey of [undefined, `bench-${tokens}`]) {
      const resets: number[] = [];
      for (let i = 0; i < RESETS; i++) {
        const t0 = performance.now();
        const fresh = await pool.openEpisode({ ctx, ctxKey });
        resets.push(performance.now() - t0);
        await check(fresh);
        await fresh.close();
      }
      emit({
        metric: 'reset_latency',
        context_tokens: tokens,
        context_chars: ctx.length,
        ctx_key: ctxKey !== undefined,
        ...summary(resets),
        warm_at_end: pool.stats().warm,
      });
    }

    const episodes = await Promise.all(Array.from({ length: CONCURRENCY }, () => pool.openEpisode({ ctx })));
    for (const e of episodes) await check(e);
    const loaded: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      episodes.map(async (e) => {
        for (let i = 0; i < STEPS_PER_EPISODE; i++) {
          const s0 = performance.now();
          await check(e);
          loaded.push(performance.now() - s0);
        }
      }),
    );
    const loadedElapsed = performance.now() - t0;
    await Promise.all(episodes.map((e) => e.close()));
    emit({
      metric: 'throughput',
      context_tokens: tokens,
      sessions: CONCURRENCY,
      steps_per_session: STEPS_PER_EPISODE,
      ...summary(loaded),
      steps_per_s: Math.round((loaded.length / loadedElapsed) * 1000),
    });
  }
} finally {
  await pool.close();
}
