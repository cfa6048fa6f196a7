/**
 * `npm run demo`: FATHOM's main job on one machine. Applies the migrations, starts every service as its own
 * process against the local Redis and Postgres, starts a short GRPO run of the default model through the admin
 * API, streams its progress, and prints where to look. With a terminal it keeps the services up until Ctrl-C
 * (so the dashboard and /metrics stay reachable); otherwise, or with FATHOM_DEMO_EXIT=1, it stops them at the end.
 * Ctrl-C (or SIGTERM) stops the run first (the learner abandons its step and marks it stopped), then the services,
 * so the next demo starts from empty queues. The services run in process groups of their own for that: a Ctrl-C
 * in the terminal reaches only the demo.
 *
 * Environment: DATABASE_URL (default postgresql://postgres@127.0.0.1:5432/fathom), REDIS_URL (default
 * redis://127.0.0.1:6379), FATHOM_DEMO_STEPS (default 3), FATHOM_DEMO_OUT (default out/demo), FATHOM_DEMO_PORT
 * (default 8080: the admin API and dashboard; a free port instead when it is taken).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Redis } from 'ioredis';
import pg from 'pg';
import { RunConfigSchema, type RunConfigInput } from '@fathom/contracts';
import { applyMigrations, DEFAULT_DATABASE_URL, ensureDatabase } from '@fathom/persistence';
import { redisOptionsFromUrl } from '@fathom/queue';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import type { ServiceProcess } from '@fathom/runtime';
import { DEFAULT_POLICY_DIR } from '@fathom/training';
import { startStack, type Stack } from './stack';

const databaseUrl = process.env.DATABASE_URL || DEFAULT_DATABASE_URL;
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const steps = Number(process.env.FATHOM_DEMO_STEPS || 3);
const out = resolve(process.env.FATHOM_DEMO_OUT || 'out/demo');
const demoPort = Number(process.env.FATHOM_DEMO_PORT || 8080);
const tty = process.stdout.isTTY === true;
const say = (line: string) => process.stdout.write(`${line}\n`);
const secondsSince = (start: number) => ((performance.now() - start) / 1000).toFixed(1);
const wholeSecondsSince = (start: number) => Math.floor((performance.now() - start) / 1000);
/** How long Ctrl-C waits for the learner to mark the run stopped before the services are stopped anyway. */
const STOP_WAIT_MS = 60_000;
/** Without a terminal, a progress line at most this often while a step runs. */
const QUIET_PROGRESS_MS = 10_000;
const ENDED = ['completed', 'failed', 'stopped'];

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

/** Whether nothing listens on 127.0.0.1:`port` (a moment later something may; then the admin API fails to start). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/** The admin API's port: FATHOM_DEMO_PORT (8080) when it is free, else 0 (a free one), said on the console. */
async function adminPort(): Promise<number> {
  if (!Number.isInteger(demoPort) || demoPort < 1 || demoPort > 65_535) {
    say(`demo: FATHOM_DEMO_PORT must be a port number (1-65535), got "${process.env.FATHOM_DEMO_PORT}"`);
    process.exit(1);
  }
  if (await portIsFree(demoPort)) return demoPort;
  say(
    `demo: port ${demoPort} is taken; the admin API and dashboard take a free port instead (FATHOM_DEMO_PORT sets it)`,
  );
  return 0;
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
    optimizer: { lr: 1e-4 },
    rollout: { maxTurns: 4, maxTokensPerTurn: 512, maxEpisodeTokens: 2048 },
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

interface QueueRow {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  deadLettered: number;
}

const groups = (n: number) => `${n} group${n === 1 ? '' : 's'}`;

/**
 * What the services are doing in the current step, from the queue depths (GET /queues, as the dashboard's run
 * page shows them). `rolledOut`: this step's rollouts were seen already, so an idle queue means the learner's update.
 */
function activity(queues: QueueRow[], step: number, rolledOut: boolean): string {
  const depth = (name: string) => queues.find((q) => q.queue === name) ?? { waiting: 0, active: 0, delayed: 0 };
  const rollout = depth('rollout');
  const reward = depth('reward');
  const queued = rollout.waiting + rollout.delayed;
  const dead = queues.reduce((n, q) => n + q.deadLettered, 0);
  const deadNote = dead > 0 ? ` · ${dead} dead-lettered` : '';
  if (rollout.active + queued > 0) {
    const compiling = step === 1 ? ' (step 1 also compiles the policy graphs)' : '';
    return `rolling out ${groups(rollout.active)}, ${queued} queued${compiling}${deadNote}`;
  }
  const scoring = reward.active + reward.waiting + reward.delayed;
  if (scoring > 0) return `scoring ${groups(scoring)}${deadNote}`;
  if (rolledOut) return `learner: updating the policy${deadNote}`;
  return `learner: ${step === 1 ? 'loading the model and tasks' : 'checkpointing and starting the step'}${deadNote}`;
}

/** Whether any rollout job is queued or running. */
const rollingOut = (queues: QueueRow[]) =>
  queues.some((q) => q.queue === 'rollout' && q.waiting + q.active + q.delayed > 0);

interface StepRow {
  step: number;
  rewardMean: number;
  fracRewardZeroStd: number;
  kl: number;
  loss: number;
  policyVersion: number;
  timings: Record<string, number>;
}

/**
 * Asks the learner to stop `runId` and waits (bounded) until the run has ended; returns its last status. A run that
 * ended meanwhile answers 409, which is fine.
 */
async function stopRun(stack: Stack, runId: string): Promise<string> {
  await api(stack, 'POST', `/runs/${runId}/stop`).catch(() => undefined);
  const deadline = performance.now() + STOP_WAIT_MS;
  let status = 'stopping';
  while (performance.now() < deadline) {
    status = (await api<{ status: string }>(stack, 'GET', `/runs/${runId}`).catch(() => ({ status }))).status;
    if (ENDED.includes(status)) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  return status;
}

let stack: Stack | null = null;
let runId: string | null = null;
let runStatus = 'pending';
let stopping = false;
/** Aborted by a signal while the services start: the start stops before the next service. */
const starting = new AbortController();
const bar = new SingleBar({
  // What is happening comes before the rewards, which a narrow terminal cuts off (the table at the end has them).
  format: 'GRPO step {value}/{total} |{bar}| {elapsed} s: {activity} | reward {reward} frac_reward_zero_std {zero}',
  barsize: 16,
  hideCursor: true,
});

/** Stops the run (if it is still going), then the services, then exits. Safe to call more than once. */
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (tty) bar.stop();
  if (stack === null) {
    say('\ndemo: stopping the services started so far …');
    starting.abort();
    return;
  }
  if (runId !== null && !ENDED.includes(runStatus)) {
    const asked = performance.now();
    say(
      `\ndemo: stopping run ${runId}: the learner abandons its step and removes its jobs (up to ${STOP_WAIT_MS / 1000} s) …`,
    );
    runStatus = await stopRun(stack, runId);
    say(
      runStatus === 'stopped'
        ? `demo: run ${runId} stopped in ${secondsSince(asked)} s; POST /runs/${runId}/resume continues it`
        : `demo: run ${runId} is ${runStatus}; stopping the services anyway`,
    );
  }
  say('demo: stopping the services …');
  await stack.stop();
  process.exit(0);
}

/** First Ctrl-C (SIGTERM, or the terminal closing): an orderly stop. A second one: SIGTERM to the services at once. */
function onSignal(): void {
  if (!stopping) {
    void shutdown();
    return;
  }
  say('demo: second signal: stopping the services now');
  void (stack?.stop() ?? Promise.resolve()).then(() => process.exit(130));
}

async function main(): Promise<void> {
  if (!existsSync(join(DEFAULT_POLICY_DIR, 'config.json'))) {
    say(
      `demo: the default model ${DEFAULT_POLICY_DIR} is missing; restore it with: git checkout -- data/checkpoints/default`,
    );
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

  const port = await adminPort();
  // From here on a signal stops the services in order; they are in process groups of their own, so nothing else
  // stops them when the demo exits.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  process.on('exit', () => stack?.services.forEach((s) => s.child.kill('SIGTERM')));
  say('demo: starting learner-service, reward-service, env-service, 2 rollout workers and admin-api …');
  const stackStarted = performance.now();
  let launchedAt = stackStarted;
  const started = await startStack({
    databaseUrl,
    redisUrl,
    queuePrefix: 'fathom-demo',
    runsDir: join(out, 'runs'),
    rolloutWorkers: 2,
    // The run is stopped before the services, so a worker's running group is worth no wait: released at once, it
    // goes back to the queue (not left locked until the lock lapses) for the next demo's workers to drop.
    workerEnv: { DRAIN_TIMEOUT_MS: '2000' },
    envService: { datasetPath },
    adminPort: port,
    ownProcessGroups: true,
    signal: starting.signal,
    onLaunch: (name) => {
      launchedAt = performance.now();
      if (tty) process.stdout.write(`demo:   ${name} starting …`);
    },
    onReady: (service: ServiceProcess) => {
      const line = `demo:   ${service.name.padEnd(18)} ready in ${secondsSince(launchedAt)} s`;
      if (tty) process.stdout.write(`\r\x1b[2K${line}\n`);
      else say(line);
    },
  }).catch((error: unknown) => {
    if (!starting.signal.aborted) throw error;
    say('demo: stopped');
    process.exit(0);
  });
  stack = started;
  if (starting.signal.aborted) {
    // The signal came while the last service started.
    say('demo: stopping the services …');
    await started.stop();
    process.exit(0);
  }
  say(`demo: services up in ${secondsSince(stackStarted)} s; admin API and dashboard on ${started.adminUrl}`);

  const config = RunConfigSchema.parse(demoRun());
  const run = await api<{ id: string }>(started, 'POST', '/runs', config);
  runId = run.id;
  const dashboard = `${started.adminUrl}/dashboard/#/runs/${run.id}`;
  say(
    `demo: run ${run.id}: ${config.steps} GRPO steps of B=${config.batchSize} groups × G=${config.grpo.groupSize} episodes`,
  );
  say(`demo: watch it live at ${dashboard}`);
  if (tty) bar.start(config.steps, 0, { reward: '-', zero: '-', elapsed: '0', activity: 'pending' });
  let rows: StepRow[] = [];
  let error: string | null = null;
  let stepStarted = performance.now();
  let rolledOut = false;
  let lastQuietLine = performance.now();
  while (!ENDED.includes(runStatus) && !stopping) {
    await new Promise((r) => setTimeout(r, 1000));
    const [current, steps, queues] = await Promise.all([
      api<{ status: string; error: string | null }>(started, 'GET', `/runs/${run.id}`),
      api<{ items: StepRow[] }>(started, 'GET', `/runs/${run.id}/steps`),
      api<{ queues: QueueRow[] }>(started, 'GET', '/queues').catch(() => ({ queues: [] })),
    ]);
    if (stopping) break;
    runStatus = current.status;
    error = current.error;
    const seen = rows.length;
    rows = steps.items;
    if (rows.length > seen) {
      stepStarted = performance.now();
      rolledOut = false;
    }
    rolledOut ||= rollingOut(queues.queues);
    const doing = runStatus === 'running' ? activity(queues.queues, rows.length + 1, rolledOut) : runStatus;
    const last = rows.at(-1);
    if (tty) {
      bar.update(rows.length, {
        reward: last ? last.rewardMean.toFixed(3) : '-',
        zero: last ? last.fracRewardZeroStd.toFixed(2) : '-',
        elapsed: wholeSecondsSince(stepStarted),
        activity: doing,
      });
      continue;
    }
    for (const r of rows.slice(seen)) {
      say(
        `demo: step ${r.step}/${config.steps} reward ${r.rewardMean.toFixed(3)} frac_reward_zero_std ${r.fracRewardZeroStd.toFixed(2)} (${(r.timings.step_s ?? 0).toFixed(1)} s)`,
      );
      lastQuietLine = performance.now();
    }
    if (performance.now() - lastQuietLine >= QUIET_PROGRESS_MS && !ENDED.includes(runStatus)) {
      say(`demo: step ${rows.length + 1}/${config.steps}, ${wholeSecondsSince(stepStarted)} s: ${doing}`);
      lastQuietLine = performance.now();
    }
  }
  if (stopping) return;
  if (tty) bar.stop();
  if (runStatus !== 'completed') say(`demo: the run ended ${runStatus}${error ? `: ${error}` : ''}`);
  const { components } = await api<{ components: Record<string, (number | null)[]> }>(
    started,
    'GET',
    `/runs/${run.id}/series`,
  ).catch(() => ({ components: {} as Record<string, (number | null)[]> }));
  const correct = components.correctness ?? [];
  const pct = (v: number | null | undefined) => (v == null ? '-' : `${Math.round(100 * v)}%`);
  say('\nstep  reward  correct  frac_zero_std  kl        loss      policy  step_s');
  rows.forEach((r, i) => {
    say(
      `${String(r.step).padEnd(6)}${r.rewardMean.toFixed(3).padEnd(8)}${pct(correct[i]).padEnd(9)}` +
        `${r.fracRewardZeroStd.toFixed(2).padEnd(15)}${r.kl.toExponential(2).padEnd(10)}${r.loss.toFixed(4).padEnd(10)}` +
        `${String(r.policyVersion).padEnd(8)}${(r.timings.step_s ?? 0).toFixed(1)}`,
    );
  });
  const answered = correct.filter((v): v is number => v !== null);
  if (answered.length > 0) {
    const best = Math.max(...answered);
    say(
      best > 0
        ? `\nThe policy answered: ${pct(answered[0])} of step 1's episodes were right, ${pct(answered.at(-1))} of the ` +
            `last step's (each answer checked against its task's gold; leaf llm() reads by the span reader).`
        : '\nNo episode of this short run answered right: every correctness was 0.',
    );
  }
  const served = await started.envServed();
  if (served !== null) {
    say(
      `\nThe rollout workers ran every episode in the env-service: ${served.resets} episodes, ${served.codeSteps} code ` +
        `steps, ${served.clientLlmCalls} llm() calls answered by the workers' policy.`,
    );
  }
  say('\nWhere to look:');
  say(`  this run             ${dashboard}`);
  say(`  dashboard            ${started.adminUrl}/dashboard/`);
  say(`  admin API + OpenAPI  ${started.adminUrl}/docs  (no ADMIN_TOKEN: open, so it listens on 127.0.0.1 only)`);
  say(
    `  run API              ${started.adminUrl}/runs/${run.id}  (steps: /runs/${run.id}/steps, episodes: /runs/${run.id}/episodes)`,
  );
  if (started.envUrl) say(`  env-service          ${started.envUrl}/  (OpenEnv: /reset /step /state, /ws, /mcp)`);
  for (const s of started.services) {
    const servicePort = s.ready.http_port ?? s.ready.port;
    say(`  ${s.name.padEnd(20)} http://127.0.0.1:${servicePort}/metrics`);
  }
  say(`  run folder           ${join(out, 'runs', run.id)}  (metrics.jsonl, checkpoints/, rollouts/)`);
  if (tty && process.env.FATHOM_DEMO_EXIT !== '1') {
    say('\ndemo: services keep running; Ctrl-C stops them.');
    return;
  }
  await shutdown();
}

main().catch(async (error: unknown) => {
  if (stopping) return;
  say(`demo: failed: ${error instanceof Error ? error.message : String(error)}`);
  stopping = true;
  await stack?.stop();
  process.exit(1);
});
