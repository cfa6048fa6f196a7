/**
 * `npm run demo`: FATHOM's main job on one machine. Applies the migrations, starts every service as its own
 * process against the local Redis and Postgres, starts a short GRPO run of the default model through the admin
 * API, streams its progress, and prints where to look. With a terminal it keeps the services up until Ctrl-C
 * (so the dashboard and /metrics stay reachable); otherwise, or with FATHOM_DEMO_EXIT=1, it stops them at the end.
 *
 * Environment: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/fathom), REDIS_URL (default
 * redis://127.0.0.1:6379), FATHOM_DEMO_STEPS (default 3), FATHOM_DEMO_OUT (default out/demo).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Redis } from 'ioredis';
import pg from 'pg';
import { RunConfigSchema, type RunConfigInput } from '@fathom/contracts';
import { applyMigrations, DEFAULT_DATABASE_URL, ensureDatabase } from '@fathom/persistence';
import { redisOptionsFromUrl } from '@fathom/queue';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { DEFAULT_POLICY_DIR, REPO_ROOT } from '@fathom/training';
import { startStack, type Stack } from './stack';

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const steps = Number(process.env.FATHOM_DEMO_STEPS || 3);
const out = resolve(REPO_ROOT, process.env.FATHOM_DEMO_OUT || 'out/demo');
const say = (line: string) => process.stdout.write(`${line}\n`);
let stopping = false;

const HOW_TO_START = `
Start them with docker:            docker compose up -d postgres redis
or, on this machine's own servers:  pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start
                                    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no
(or point DATABASE_URL / REDIS_URL at running ones).`;

async function checkDependencies(): Promise<void> {
  const problems: string[] = [];
  const redis = new Redis({
    ...redisOptionsFromUrl(redisUrl),
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(`Redis is unreachable at ${redisUrl} (${(error as Error).message})`);
  } finally {
    redis.disconnect();
  }
  const server = new URL(databaseUrl);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    problems.push(`Postgres is unreachable at ${server.host} (${(error as Error).message})`);
  } finally {
    await client.end().catch(() => undefined);
  }
  if (problems.length > 0) {
    say(`demo: cannot start.\n  ${problems.join('\n  ')}\n${HOW_TO_START}`);
    process.exit(1);
  }
}

/** A short GRPO run of the shipped default policy on generated 4K-16K-token tasks. */
function demoRun(): RunConfigInput {
  return {
    name: 'demo',
    seed: 0,
    model: { checkpoint: 'default' },
    data: { trainSize: 32, minContextTokens: 4096, maxContextTokens: 16_384 },
    steps,
    batchSize: 2,
    checkpointEvery: 2,
    grpo: { groupSize: 4 },
    optimizer: { learningRate: 1e-4 },
    rollout: { maxTurns: 4, maxTokensPerTurn: 256, maxEpisodeTokens: 1536 },
  };
}

async function api<T>(stack: Stack, method: string, path: string, body?: unknown): Promise<T> {
  const reply = await fetch(`${stack.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await reply.json()) as T;
  if (!reply.ok) throw new Error(`${method} ${path} answered ${reply.status}: ${JSON.stringify(json)}`);
  return json;
}

interface StepRow {
  step: number;
  rewardMean: number;
  fracRewardZeroStd: number;
  kl: number;
  loss: number;
  policyVersion: number;
  timings: Record<string, number>;
}

async function main(): Promise<void> {
  if (!existsSync(join(DEFAULT_POLICY_DIR, 'config.json'))) {
    say(`demo: the default policy ${DEFAULT_POLICY_DIR} is missing; rebuild it with: bash scripts/reproduce-sft.sh`);
    process.exit(1);
  }
  await checkDependencies();
  say(`demo: database ${databaseUrl}`);
  await ensureDatabase(databaseUrl);
  const migrations = await applyMigrations(databaseUrl);
  say(`demo: migrations applied (${migrations.applied.length} new, ${migrations.alreadyApplied.length} already there)`);
  await mkdir(out, { recursive: true });
  const datasetPath = join(out, 'env-tasks.jsonl');
  await writeTasksJsonl(
    datasetPath,
    generateTasks({ split: 'eval', n: 8, seed: 7, minTokens: 4096, maxTokens: 16_384 }),
  );

  say('demo: starting learner-service, reward-service, 2 rollout workers, env-service and admin-api …');
  const stack = await startStack({
    databaseUrl,
    redisUrl,
    queuePrefix: 'fathom-demo',
    runsDir: join(out, 'runs'),
    rolloutWorkers: 2,
    envService: { datasetPath },
  });
  let runId: string | null = null;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    say('\ndemo: stopping the services …');
    // A run left "running" would be resumed by the next learner that starts; stopped, it waits for POST /resume.
    if (runId !== null) await api(stack, 'POST', `/runs/${runId}/stop`).catch(() => undefined);
    await stack.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);

  const config = RunConfigSchema.parse(demoRun());
  const run = await api<{ id: string }>(stack, 'POST', '/runs', config);
  runId = run.id;
  say(
    `demo: run ${run.id}: ${config.steps} GRPO steps of B=${config.batchSize} groups × G=${config.grpo.groupSize} episodes`,
  );
  const tty = process.stdout.isTTY === true;
  const bar = new SingleBar({
    format: 'GRPO |{bar}| step {value}/{total} | reward {reward} | frac_reward_zero_std {zero} | {status}',
    hideCursor: true,
  });
  if (tty) bar.start(config.steps, 0, { reward: '-', zero: '-', status: 'pending' });
  let rows: StepRow[] = [];
  let status = 'pending';
  let error: string | null = null;
  while (!['completed', 'failed', 'stopped'].includes(status)) {
    await new Promise((r) => setTimeout(r, 1000));
    const current = await api<{ status: string; error: string | null }>(stack, 'GET', `/runs/${run.id}`);
    status = current.status;
    error = current.error;
    const seen = rows.length;
    rows = (await api<{ items: StepRow[] }>(stack, 'GET', `/runs/${run.id}/steps`)).items;
    const last = rows.at(-1);
    if (tty) {
      bar.update(rows.length, {
        reward: last ? last.rewardMean.toFixed(3) : '-',
        zero: last ? last.fracRewardZeroStd.toFixed(2) : '-',
        status,
      });
    } else {
      for (const r of rows.slice(seen))
        say(
          `demo: step ${r.step}/${config.steps} reward ${r.rewardMean.toFixed(3)} frac_reward_zero_std ${r.fracRewardZeroStd.toFixed(2)} (${(r.timings.step_s ?? 0).toFixed(1)} s)`,
        );
    }
  }
  if (tty) bar.stop();
  if (status !== 'completed') say(`demo: the run ended ${status}${error ? `: ${error}` : ''}`);
  say('\nstep  reward  frac_zero_std  kl        loss      policy  step_s');
  for (const r of rows) {
    say(
      `${String(r.step).padEnd(6)}${r.rewardMean.toFixed(3).padEnd(8)}${r.fracRewardZeroStd.toFixed(2).padEnd(15)}` +
        `${r.kl.toExponential(2).padEnd(10)}${r.loss.toFixed(4).padEnd(10)}${String(r.policyVersion).padEnd(8)}` +
        `${(r.timings.step_s ?? 0).toFixed(1)}`,
    );
  }
  say('\nWhere to look:');
  say(`  dashboard            ${stack.adminUrl}/dashboard/`);
  say(`  admin API + OpenAPI  ${stack.adminUrl}/docs  (no ADMIN_TOKEN: open, so it listens on 127.0.0.1 only)`);
  say(
    `  this run             ${stack.adminUrl}/runs/${run.id}  (steps: /runs/${run.id}/steps, episodes: /runs/${run.id}/episodes)`,
  );
  if (stack.envUrl) say(`  env-service          ${stack.envUrl}/  (OpenEnv: /reset /step /state, /ws, /mcp)`);
  for (const s of stack.services) {
    const port = s.ready.http_port ?? s.ready.port;
    say(`  ${s.name.padEnd(20)} http://127.0.0.1:${port}/metrics`);
  }
  say(`  run folder           ${join(out, 'runs', run.id)}  (metrics.jsonl, checkpoints/, rollouts/)`);
  if (process.stdout.isTTY && process.env.FATHOM_DEMO_EXIT !== '1') {
    say('\ndemo: services keep running; Ctrl-C stops them.');
    return;
  }
  await shutdown();
}

main().catch((error: unknown) => {
  if (stopping) return;
  say(`demo: failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
