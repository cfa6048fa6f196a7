/**
 * The distributed GRPO loop against the in-process loop, on the same run: one JSON line per measurement.
 *
 *   node --no-node-snapshot --import tsx bench/e2e/e2e.bench.ts [--steps N] [--workers 1,2] [--tiny] [--repeats N]
 *     [--env-service] [--config run.json --batch-size B]
 *
 * For each worker count the services run as separate processes over the local Redis and Postgres (a throwaway
 * database), and `fathom train`'s loop runs the same config in this process. Step times are the learner's own
 * `time.step_s` (rollouts, scoring and update), medians over the steps after the first (which compiles graphs).
 * Overhead = distributed / in-process − 1, i.e. what queues, gRPC weight sync and Postgres writes add, against the
 * mean of the in-process runs before and after it (the machine drifts); `collect_overhead_vs_in_process` compares
 * the step minus its update (the part those hops are in). `--tiny` uses the test fixture model instead of the shipped
 * default policy (the overhead is then a larger share of a much shorter step).
 */
import { loadavg, tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command } from 'commander';
import { Redis } from 'ioredis';
import { deleteQueuePrefix, queuePrefixBytes } from '@fathom/queue/testing';
import { median, RunConfigSchema, type RunConfigInput } from '@fathom/contracts';
import { applyMigrations, createPrismaClient, dropDatabase, ensureDatabase } from '@fathom/persistence';
import { SandboxPool } from '@fathom/sandbox';
import { DEFAULT_POLICY_DIR, grpoTrainConfigOfRun, MetricsLog, runGrpo, runTasks } from '@fathom/training';
import { sftWarmStart, TEST_STYLE } from '@fathom/training/testing';
import { startStack, type EnvServed } from '../../scripts/stack';

const opts = new Command()
  .option('--steps <n>', 'GRPO steps per run (the first is not timed)', (v) => Number(v), 4)
  .option('--workers <list>', 'rollout worker counts to measure', '1,2')
  .option('--tiny', 'use the tiny test fixture model instead of the default policy', false)
  .option('--env-service', 'also measure the services with every episode in the env-service (ENV_URL)', false)
  .option(
    '--repeats <n>',
    'services runs per layout, each between two in-process runs (the machine drifts between runs)',
    (v) => Number(v),
    1,
  )
  .option('--config <file>', 'a run config (JSON) to measure instead of the default policy run (steps from --steps)')
  .option('--batch-size <n>', "with --config: prompts per step instead of the config's", (v) => Number(v))
  .option(
    '--checkpoint-every <n>',
    'checkpoint interval of the run (the queues drop a step once it is checkpointed)',
    (v) => Number(v),
    1000,
  )
  .parse()
  .opts<{
    steps: number;
    workers: string;
    tiny: boolean;
    envService: boolean;
    repeats: number;
    config?: string;
    batchSize?: number;
    checkpointEvery: number;
  }>();

const emit = (record: object) => process.stdout.write(`${JSON.stringify({ bench: 'e2e', ...record })}\n`);
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

async function runConfig(): Promise<{ model: string; run: RunConfigInput }> {
  const base = { name: 'bench-e2e', seed: 1, steps: opts.steps, batchSize: 2, checkpointEvery: opts.checkpointEvery };
  if (opts.config !== undefined) {
    const run = JSON.parse(await readFile(opts.config, 'utf8')) as RunConfigInput;
    const batchSize = opts.batchSize ?? run.batchSize;
    return {
      model: opts.config,
      run: { ...run, name: 'bench-e2e', steps: opts.steps, batchSize, checkpointEvery: 1000 },
    };
  }
  if (!opts.tiny && existsSync(join(DEFAULT_POLICY_DIR, 'config.json'))) {
    return {
      model: 'default',
      run: {
        ...base,
        data: { trainSize: 16, minContextTokens: 4096, maxContextTokens: 16_384 },
        grpo: { groupSize: 4 },
        optimizer: { lr: 1e-4 },
        rollout: { maxTurns: 4, maxTokensPerTurn: 256, maxEpisodeTokens: 1536 },
      },
    };
  }
  const f = await sftWarmStart();
  return {
    model: 'tiny-fixture',
    run: {
      ...base,
      model: { checkpoint: f.sftFinal },
      data: { trainFile: f.tasks, trainSize: 8 },
      grpo: { groupSize: 4 },
      reward: { tokenBudget: { alpha: 20 } },
      optimizer: { lr: 1e-3 },
      rollout: { maxTurns: 3, maxTokensPerTurn: 48, maxEpisodeTokens: 500, promptStyle: TEST_STYLE },
    },
  };
}

interface Timed {
  /** What the env-service served for the run, when its episodes ran there. */
  envServed?: EnvServed | null;
  /** The most bytes Redis held under the run's queue prefix while each step ran (distributed only). */
  redisBytesByStep?: Map<number, number>;
  stepS: number[];
  generationS: number[];
  /** Everything but the update: rollouts, scoring, weight sync (and, distributed, the queue and RPC hops). */
  collectS: number[];
  /** The median of each `time.*_s` field of the timed steps' records (generation_s, weight_sync_s, update_s …). */
  phasesS: Record<string, number>;
}

const timed = (records: Record<string, unknown>[]): Timed => {
  const times = records.slice(1).map((r) => r.time as Record<string, number>);
  const phases = Object.keys(times[0] ?? {}).filter((k) => k.endsWith('_s'));
  return {
    stepS: times.map((t) => t.step_s),
    generationS: times.map((t) => t.generation_s),
    collectS: times.map((t) => t.step_s - t.update_s),
    phasesS: Object.fromEntries(phases.map((k) => [k, round(median(times.map((t) => t[k])))])),
  };
};

async function inProcess(run: RunConfigInput): Promise<Timed> {
  const parsed = RunConfigSchema.parse(run);
  const out = await mkdtemp(join(tmpdir(), 'fathom-bench-e2e-'));
  const pool = await SandboxPool.start({ workers: 1 });
  try {
    await runGrpo(await grpoTrainConfigOfRun(parsed, out), {
      sandbox: pool,
      tasks: await runTasks(parsed),
    });
  } finally {
    await pool.close();
  }
  return timed(await MetricsLog.read(join(out, 'metrics.jsonl')));
}

const REDIS_URL = 'redis://127.0.0.1:6379';

async function distributed(run: RunConfigInput, workers: number, envService: boolean): Promise<Timed> {
  const databaseUrl = `postgresql://postgres@127.0.0.1:5432/fathom_bench_e2e_${process.pid}`;
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
  const runsDir = await mkdtemp(join(tmpdir(), 'fathom-bench-e2e-runs-'));
  const queuePrefix = `fathom-bench-${process.pid}-${workers}${envService ? '-env' : ''}`;
  const stack = await startStack({
    // The fixture's checkpoint and tasks live in a temporary folder, outside the default data roots.
    dataRoots: [tmpdir()],
    databaseUrl,
    redisUrl: REDIS_URL,
    queuePrefix,
    runsDir,
    rolloutWorkers: workers,
    ...(envService ? { envService: {} } : {}),
  });
  const prisma = createPrismaClient(databaseUrl);
  const redis = new Redis(REDIS_URL);
  const redisBytesByStep = new Map<number, number>();
  try {
    const reply = await fetch(`${stack.adminUrl}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(run),
    });
    const { id } = (await reply.json()) as { id: string };
    for (;;) {
      const row = await prisma.run.findUniqueOrThrow({ where: { id } });
      const bytes = await queuePrefixBytes(redis, queuePrefix);
      redisBytesByStep.set(row.step + 1, Math.max(bytes, redisBytesByStep.get(row.step + 1) ?? 0));
      if (row.status === 'failed') throw new Error(`run failed: ${row.error}`);
      if (row.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const records = await MetricsLog.read(join(runsDir, id, 'metrics.jsonl'));
    return { ...timed(records), envServed: await stack.envServed(), redisBytesByStep };
  } finally {
    await stack.stop();
    redis.disconnect();
    await deleteQueuePrefix(queuePrefix, REDIS_URL);
    await prisma.$disconnect();
    await dropDatabase(databaseUrl);
  }
}

const { model, run } = await runConfig();
const parsedRun = RunConfigSchema.parse(run);
const groups = parsedRun.batchSize;
const context = {
  model,
  steps_timed: opts.steps - 1,
  B: groups,
  G: parsedRun.grpo.groupSize,
  load_avg_1m: round(loadavg()[0], 2),
};
const layouts = opts.workers
  .split(',')
  .map(Number)
  .flatMap((workers) => (opts.envService ? [false, true] : [false]).map((envService) => ({ workers, envService })));
const modeOf = ({ workers, envService }: { workers: number; envService: boolean }) =>
  `services_${workers}_worker${workers > 1 ? 's' : ''}${envService ? '_env_service' : ''}`;

/** The lines every run prints: median step, rollout groups/s, learner steps/min and phase times. */
function emitRun(mode: string, repeat: number, t: Timed) {
  const at = { ...context, mode, repeat };
  const step = median(t.stepS);
  emit({ ...at, metric: 'step_s_median', value: round(step) });
  emit({ ...at, metric: 'rollout_groups_per_s', value: round(groups / median(t.generationS)) });
  emit({ ...at, metric: 'learner_steps_per_min', value: round(60 / step) });
  emit({ ...at, metric: 'phase_s_median', ...t.phasesS });
}

async function measureInProcess(repeat: number): Promise<Timed> {
  const base = await inProcess(run);
  emitRun('in_process', repeat, base);
  return base;
}

function emitServices(mode: string, repeat: number, d: Timed) {
  const at = { ...context, mode, repeat };
  emitRun(mode, repeat, d);
  if (d.redisBytesByStep !== undefined && d.redisBytesByStep.size > 0) {
    const steps = [...d.redisBytesByStep.keys()].sort((a, b) => a - b);
    const bytes = steps.map((step) => d.redisBytesByStep!.get(step)!);
    // The most bytes in each tenth of the run (null for a tenth without a step, in runs under 10 steps): flat when
    // the queues drop what the checkpoints cover.
    const tenths = Array.from({ length: 10 }, (_, i) => {
      const sampled = steps.filter((step) => Math.ceil((step * 10) / steps.at(-1)!) === i + 1);
      return sampled.length === 0 ? null : Math.max(...sampled.map((step) => d.redisBytesByStep!.get(step)!));
    });
    emit({
      ...at,
      metric: 'redis_bytes',
      checkpoint_every: parsedRun.checkpointEvery,
      median: median(bytes),
      max: Math.max(...bytes),
      max_by_tenth_of_the_run: tenths,
    });
  }
  if (d.envServed) {
    const { resets, codeSteps, clientLlmCalls, serviceLlmCalls } = d.envServed;
    emit({
      ...at,
      metric: 'env_served',
      resets,
      code_steps: codeSteps,
      llm_calls_answered_by_workers: clientLlmCalls,
      llm_calls_answered_by_service: serviceLlmCalls,
    });
  }
}

// In-process, then each layout's services, then in-process again, `repeats` times: each services run is compared
// with the mean of the two in-process runs around it, so the machine's drift over the bench (several percent on this
// shared machine) cancels to first order instead of landing in the overhead.
const inProcessRuns: Timed[] = [await measureInProcess(0)];
const servicesRuns = new Map<string, Timed[]>(layouts.map((layout) => [modeOf(layout), []]));
for (let repeat = 0; repeat < opts.repeats; repeat++) {
  for (const layout of layouts) {
    const d = await distributed(run, layout.workers, layout.envService);
    servicesRuns.get(modeOf(layout))!.push(d);
    emitServices(modeOf(layout), repeat, d);
  }
  inProcessRuns.push(await measureInProcess(repeat + 1));
}
const bracket = (repeat: number, of: (t: Timed) => number[]) =>
  (median(of(inProcessRuns[repeat])) + median(of(inProcessRuns[repeat + 1]))) / 2;
for (const [mode, runs] of servicesRuns) {
  const emitOverhead = (metric: string, of: (t: Timed) => number[], extra: object = {}) => {
    const values = runs.map((d, repeat) => median(of(d)) / bracket(repeat, of) - 1);
    emit({ ...context, mode, metric, value: round(median(values)), per_repeat: values.map((x) => round(x)), ...extra });
  };
  emitOverhead('overhead_vs_in_process', (t) => t.stepS, { target: 0.1 });
  emitOverhead('collect_overhead_vs_in_process', (t) => t.collectS);
}
