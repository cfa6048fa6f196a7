import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { freePort } from '@fathom/runtime';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  deadLetterIdOf,
  deadLetterQueueOf,
  DeadLetterSchema,
  groupId,
  groupJobId,
  QUEUE_NAMES,
  type RunConfigInput,
} from '@fathom/contracts';
import { createPrismaClient, dropDatabase, type PrismaClient } from '@fathom/persistence';
import { BullMqTransport, queueStats, redisOptionsFromUrl } from '@fathom/queue';
import { FaultProxy } from '@fathom/queue/testing';
import { sftWarmStart, TEST_STYLE, type GrpoFixture } from '@fathom/training/testing';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../scripts/stack';
import { expectClose, freshDatabase, until, untilRunStatus } from './support';

// Chaos: the services as processes on a Redis of their own (started here, so it can be killed) and a database of
// their own reached through FaultProxy (so Postgres can be cut without touching the shared server). Each scenario
// trains the same tiny run with one fault in it and checks it against a run without faults: the run completes with
// contiguous steps, the same policy version and metrics at every step, every episode recorded once, and no dead
// letter; afterwards it prints the seconds of every step and what each fault cost (docs/SERVICES.md, "What each fault
// costs"). A rollout worker killed mid-group is tests/e2e/services.test.ts's last case. A group whose worker is
// killed twice, (a2), must fail its run at once, explained by a `stalled` dead letter; resuming that run, (a3), must
// run the group again and complete; a Redis that comes back empty, (d2), must cost seconds, not STEP_TIMEOUT_S.

const POSTGRES = { host: '127.0.0.1', port: 5432 };
const database = `fathom_test_chaos_${process.pid}`;
const directUrl = `postgresql://postgres@${POSTGRES.host}:${POSTGRES.port}/${database}`;
const queuePrefix = `fathom-chaos-${process.pid}`;
const STEPS = 4;
const B = 2;
const G = 4;
const RUN_TIMEOUT_MS = 180_000;

/** A redis-server of the test's own, with an append-only file fsynced at every write, as docker-compose runs it. */
class OwnRedis {
  private child: ChildProcess | null = null;

  constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    args.push('--appendonly', 'yes', '--appendfsync', 'always', '--daemonize', 'no');
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code}:\n${out}`)));
    });
  }

  /** Deletes the append-only file of a killed server: it starts again empty, as one without persistence does. */
  async forget(): Promise<void> {
    await rm(join(this.dir, 'appendonlydir'), { recursive: true, force: true });
  }

  /** SIGKILL: no shutdown, what the append-only file holds is what the restarted server has. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
}

let redis: OwnRedis;
let redisDir: string;
let runsDir: string;
let postgres: FaultProxy;
let rewardPostgres: FaultProxy;
let stack: Stack;
let prisma: PrismaClient;
let transport: BullMqTransport;
let fixture: GrpoFixture;
/** How often a learner resumed a run from its checkpoint (its "resuming run" log line). */
let learnerResumes = 0;

beforeAll(async () => {
  await freshDatabase(directUrl);
  prisma = createPrismaClient(directUrl);
  redisDir = await mkdtemp(join(tmpdir(), 'fathom-chaos-redis-'));
  redis = new OwnRedis(await freePort(), redisDir);
  await redis.start();
  transport = new BullMqTransport({ redisUrl: redis.url, prefix: queuePrefix });
  postgres = await FaultProxy.start(POSTGRES);
  // The reward-service's own way to the database, cut to hold a group in its hands while it is killed.
  rewardPostgres = await FaultProxy.start(POSTGRES);
  const through = (proxy: FaultProxy) => `postgresql://postgres@127.0.0.1:${proxy.listenPort}/${database}`;
  fixture = await sftWarmStart();
  runsDir = await mkdtemp(join(tmpdir(), 'fathom-chaos-runs-'));
  stack = await startStack({
    // The fixture's checkpoint and tasks live in a temporary folder, outside the default data roots.
    dataRoots: [fixture.dir],
    databaseUrl: through(postgres),
    redisUrl: redis.url,
    queuePrefix,
    runsDir,
    rolloutWorkers: 2,
    serviceEnv: { 'reward-service': { DATABASE_URL: through(rewardPostgres) } },
    onLine: (name, line) => {
      if (name === 'learner-service' && line.includes('"resuming run"')) learnerResumes++;
    },
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await transport?.close();
  await prisma?.$disconnect();
  await postgres?.close();
  await rewardPostgres?.close();
  await redis?.kill();
  for (const dir of [redisDir, runsDir]) if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  await dropDatabase(directUrl);
  console.log(costTable());
}, 60_000);

const runConfig = (name: string, batchSize = B): RunConfigInput => ({
  name,
  seed: 11,
  model: { checkpoint: fixture.sftFinal },
  data: { trainFile: fixture.tasks, trainSize: 8 },
  steps: STEPS,
  batchSize,
  checkpointEvery: 1,
  grpo: { groupSize: G, beta: 0.04 },
  optimizer: { lr: 1e-3 },
  rollout: { maxTurns: 3, maxTokensPerTurn: 48, maxEpisodeTokens: 700, promptStyle: TEST_STYLE, maxInfraRetries: 0 },
});

async function startRun(name: string, batchSize = B): Promise<string> {
  const reply = await fetch(`${stack.adminUrl}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(runConfig(name, batchSize)),
  });
  expect(reply.status).toBe(201);
  return ((await reply.json()) as { id: string }).id;
}

/** Waits for the run to complete; a run that fails or hangs is stopped, so the learner is free for the next case. */
async function completed(runId: string, timeoutMs = RUN_TIMEOUT_MS): Promise<void> {
  try {
    await untilRunStatus(prisma, runId, 'completed', timeoutMs, stack);
  } catch (error) {
    await fetch(`${stack.adminUrl}/runs/${runId}/stop`, { method: 'POST' }).catch(() => undefined);
    throw error;
  }
}

/** Each step's wall time in seconds: step 1 from the run's creation, step k from step k-1's row. */
async function stepSeconds(runId: string): Promise<number[]> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
  const steps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' } });
  let previous = run.createdAt.getTime();
  return steps.map((s) => {
    const seconds = (s.createdAt.getTime() - previous) / 1000;
    previous = s.createdAt.getTime();
    return seconds;
  });
}

/** The dead letters of the run's groups, in every group queue. */
async function deadLettersOf(runId: string): Promise<string[]> {
  const letters: string[] = [];
  for (let step = 1; step <= STEPS; step++)
    for (let g = 0; g < B; g++)
      for (const queue of ['rollout', 'reward', 'learn'] as const) {
        const id = groupJobId({ runId, step, groupId: groupId(step, g) });
        const data = await transport.getJobData(deadLetterQueueOf(queue), deadLetterIdOf(id));
        if (data !== undefined) letters.push(`${queue} ${id}: ${DeadLetterSchema.parse(data).reason}`);
      }
  return letters;
}

const columns = { step: true, rewardMean: true, loss: true, kl: true, policyVersion: true, groupsTrainable: true };

let baseline: { runId: string; seconds: number[] } | null = null;
/** Each faulted run: its seconds per step and the step the fault hit (1-based). */
const costs: { fault: string; faultedStep: number; seconds: number[] }[] = [];

/**
 * What every case checks once its run is over: completed at the last step; steps 1..N, each with the policy version
 * and metrics of the run without faults; one PolicyVersion per update; every episode recorded once (the schema keys
 * Episode by run, step, group and sample; none missing either); no dead letter and no job left in the queues.
 */
async function expectRecovered(runId: string): Promise<void> {
  const run = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
  expect(run).toMatchObject({ status: 'completed', step: STEPS, error: null });
  const steps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' }, select: columns });
  expect(steps.map((s) => s.step)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
  const versions = await prisma.policyVersion.findMany({ where: { runId }, orderBy: { version: 'asc' } });
  expect(versions.map((v) => v.version)).toEqual(Array.from({ length: run.policyVersion + 1 }, (_, i) => i));
  expect(new Set(versions.map((v) => v.step)).size).toBe(versions.length);
  expect(run.policyVersion).toBe(steps.at(-1)!.policyVersion);
  const excluded = await prisma.step.findMany({ where: { runId }, select: { step: true, metrics: true } });
  const episodes = await prisma.episode.groupBy({
    by: ['step'],
    where: { runId },
    _count: true,
    orderBy: { step: 'asc' },
  });
  for (const { step, metrics } of excluded) {
    const recorded = episodes.find((e) => e.step === step)?._count ?? 0;
    expect(
      recorded + Number((metrics as { excluded_samples: number }).excluded_samples),
      `episodes of step ${step}`,
    ).toBe(B * G);
  }
  expect(await deadLettersOf(runId)).toEqual([]);
  const stats = await queueStats(transport, QUEUE_NAMES);
  expect(stats.map((q) => ({ queue: q.queue, open: q.waiting + q.active + q.delayed, dead: q.deadLettered }))).toEqual(
    QUEUE_NAMES.map((queue) => ({ queue, open: 0, dead: 0 })),
  );
  expect(baseline, 'the run without faults').not.toBeNull();
  const expected = await prisma.step.findMany({
    where: { runId: baseline!.runId },
    orderBy: { step: 'asc' },
    select: columns,
  });
  expectClose(steps, expected);
}

/**
 * Seconds per step of every run, and what each fault cost: the time of the step it hit over the typical time of that
 * step (the median over the runs it did not hit; the first run's first step, which warms the workers up, left out).
 */
function costTable(): string {
  const runs = [...(baseline ? [{ fault: 'none', faultedStep: 0, seconds: baseline.seconds }] : []), ...costs];
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const typical = Array.from({ length: STEPS }, (_, k) =>
    median(runs.filter((r, i) => r.faultedStep !== k + 1 && !(i === 0 && k === 0)).flatMap((r) => r.seconds[k] ?? [])),
  );
  const lines = runs.map(({ fault, faultedStep, seconds }) => {
    const hit = faultedStep - 1;
    const cost = hit < 0 ? '' : ` -> step ${faultedStep}: +${(seconds[hit] - typical[hit]).toFixed(1)} s`;
    return `${fault}: ${seconds.map((x) => x.toFixed(1)).join(' ')}${cost}`;
  });
  return [
    `seconds per step (${B} groups x ${G} episodes); typical ${typical.map((x) => x.toFixed(1)).join(' ')}`,
    ...lines,
  ].join('\n');
}

const service = (name: string) => stack.services.find((s) => s.name === name)!;

async function kill(name: string): Promise<void> {
  const { child } = service(name);
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

/**
 * Waits until the run has finished `step` steps (polled every 50 ms, so a fault now lands in the next step);
 * returns the step in progress.
 */
async function afterStep(runId: string, step: number): Promise<number> {
  const deadline = Date.now() + RUN_TIMEOUT_MS;
  for (;;) {
    const done = (await prisma.run.findUniqueOrThrow({ where: { id: runId } })).step;
    if (done >= step) return done + 1;
    if (Date.now() > deadline) throw new Error(`run ${runId} never finished step ${step}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('chaos: services killed, Redis restarted, Postgres cut mid-run (own Redis, own database)', () => {
  it('trains the run without faults (the reference of every case)', async () => {
    const runId = await startRun('chaos-baseline');
    await completed(runId);
    baseline = { runId, seconds: await stepSeconds(runId) };
    await expectRecovered(runId);
  }, 240_000);

  it('(b) the reward-service killed (SIGKILL) holding a group mid-step, then restarted', async () => {
    // With its database cut, the reward-service takes a group of step 1 and holds it, waiting out the outage.
    await rewardPostgres.cut();
    const killedHolding = startRun('chaos-reward').then(async (runId) => {
      await until(
        'the reward-service to hold a group',
        async () => ((await transport.counts('reward')).active >= 1 ? true : undefined),
        120_000,
        stack,
      );
      await kill('reward-service');
      return runId;
    });
    const runId = await killedHolding.finally(() => rewardPostgres.restore());
    await stack.restart('reward-service');
    await completed(runId);
    await expectRecovered(runId);
    costs.push({
      fault: 'reward-service SIGKILL mid-step, restarted',
      faultedStep: 1,
      seconds: await stepSeconds(runId),
    });
  }, 300_000);

  it('(c) the learner killed (SIGKILL) mid-step after its first update, then restarted: resumes from its checkpoint', async () => {
    const runId = await startRun('chaos-learner');
    const faultedStep = await afterStep(runId, 1);
    await kill('learner-service');
    const resumedBefore = learnerResumes;
    await stack.restart('learner-service');
    await completed(runId);
    expect(learnerResumes, 'the restarted learner logs "resuming run"').toBe(resumedBefore + 1);
    await expectRecovered(runId);
    costs.push({ fault: 'learner SIGKILL mid-run, restarted', faultedStep, seconds: await stepSeconds(runId) });
  }, 300_000);

  it('(d) Redis killed (SIGKILL) mid-run and started again on the same port', async () => {
    const runId = await startRun('chaos-redis');
    const faultedStep = await afterStep(runId, 1);
    await redis.kill();
    await new Promise((r) => setTimeout(r, 2000));
    await redis.start();
    await completed(runId);
    await expectRecovered(runId);
    costs.push({ fault: 'Redis SIGKILL mid-run, 2 s down, restarted', faultedStep, seconds: await stepSeconds(runId) });
  }, 300_000);

  it('(e) Postgres refusing connections for 15 s mid-run', async () => {
    const runId = await startRun('chaos-postgres');
    const faultedStep = await afterStep(runId, 1);
    await postgres.cut();
    await new Promise((r) => setTimeout(r, 15_000));
    await postgres.restore();
    await completed(runId);
    await expectRecovered(runId);
    costs.push({ fault: 'Postgres refusing connections 15 s mid-run', faultedStep, seconds: await stepSeconds(runId) });
  }, 300_000);

  let stalledRunId = '';

  it('(a2) a group whose worker is killed twice: dead-lettered as stalled, and the run fails at once with that reason', async () => {
    const rollout = new Queue('rollout', { connection: redisOptionsFromUrl(redis.url), prefix: queuePrefix });
    const child = (name: string) => service(name).child;
    const [worker2, learner] = ['rollout-worker-2', 'learner-service'].map(child);
    /** Kills rollout-worker-1 once it holds the group (stalled `times` times before), and starts it again. */
    const killHolder = async (jobId: string, times: number) => {
      await until(
        `rollout-worker-1 to hold the group (stalled ${times} times before)`,
        async () => {
          const job = await rollout.getJob(jobId);
          return job?.stalledCounter === times && (await job.getState()) === 'active' ? true : undefined;
        },
        60_000,
        stack,
      );
      await kill('rollout-worker-1');
      await stack.restart('rollout-worker-1');
    };
    // One group (B = 1); worker 2 frozen throughout, so each time the group is taken over it is by worker 1; the
    // learner frozen, so a worker holding the group waits for its weights.
    child('rollout-worker-1').kill('SIGSTOP');
    worker2.kill('SIGSTOP');
    try {
      stalledRunId = await startRun('chaos-stalled-twice', 1);
      const jobId = groupJobId({ runId: stalledRunId, step: 1, groupId: groupId(1, 0) });
      await until('the rollout job of step 1', () => transport.getJobData('rollout', jobId), 60_000, stack);
      learner.kill('SIGSTOP');
      child('rollout-worker-1').kill('SIGCONT');
      await killHolder(jobId, 0);
      await killHolder(jobId, 1);
      // The restarted worker's stalled check finds the lock lapsed a second time: BullMQ fails the job.
      const letter = await until(
        'the dead letter of the group',
        () => transport.getJobData(deadLetterQueueOf('rollout'), deadLetterIdOf(jobId)),
        60_000,
        stack,
      );
      expect(DeadLetterSchema.parse(letter)).toMatchObject({
        kind: 'stalled',
        reason: expect.stringMatching(/stalled more than allowable limit/),
      });
    } finally {
      learner.kill('SIGCONT');
      worker2.kill('SIGCONT');
      await rollout.close();
    }
    const failedAt = Date.now();
    const run = await untilRunStatus(prisma, stalledRunId, 'failed', 30_000, stack);
    expect(Date.now() - failedAt).toBeLessThan(10_000);
    expect(run.error).toMatch(
      /group s1-g0 of step 1 .*failed in the rollout queue: .*stalled more than allowable limit/,
    );
  }, 240_000);

  // Issue 17 item 6, "resume of a run re-creates what its dead letters lost": the learner sets the dead letter of (a2),
  // written before the resume, aside with the failed rollout job and rolls the group out again.
  it('(a3) resume of the run of (a2) re-creates the dead-lettered group and completes', async () => {
    expect(stalledRunId).not.toBe('');
    const resumed = await fetch(`${stack.adminUrl}/runs/${stalledRunId}/resume`, { method: 'POST' });
    expect(resumed.status).toBe(200);
    const resumedAt = Date.now();
    await completed(stalledRunId, 60_000);
    console.log(`(a3) resumed run completed ${((Date.now() - resumedAt) / 1000).toFixed(1)} s after the resume`);
  }, 120_000);

  // Issue 17, chaos: a Redis that comes back without its data (no persistence, as `--appendonly no`, or a failover to
  // an empty replica) loses the rollout jobs no worker has taken yet. The learner finds such a group in no queue (no
  // job, no learn job, no dead letter) on two consecutive checks and enqueues its rollout again (same job id and seed).
  // Jobs a worker was running when Redis went are not lost: their handlers hand the group on.
  it('(d2) Redis restarted empty (its data lost) while the rollout jobs of a step wait: the lost groups are enqueued again', async () => {
    const workers = stack.services.filter((s) => s.name.startsWith('rollout-worker')).map((s) => s.child);
    for (const worker of workers) worker.kill('SIGSTOP');
    const wiped = startRun('chaos-redis-empty').then(async (runId) => {
      await until(
        'the rollout jobs of step 1',
        async () => ((await transport.counts('rollout')).waiting >= B ? true : undefined),
        120_000,
        stack,
      );
      await redis.kill();
      await redis.forget();
      await redis.start();
      return runId;
    });
    const runId = await wiped.finally(() => {
      for (const worker of workers) worker.kill('SIGCONT');
    });
    await completed(runId, 20_000);
    await expectRecovered(runId);
    costs.push({
      fault: 'Redis restarted empty while step 1 waits',
      faultedStep: 1,
      seconds: await stepSeconds(runId),
    });
  }, 120_000);
});
