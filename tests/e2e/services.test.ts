import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  deadLetterIdOf,
  deadLetterQueueOf,
  DeadLetterSchema,
  groupId,
  groupJobId,
  RunConfigSchema,
  type QueueName,
  type RunConfigInput,
} from '@fathom/contracts';
import { createPrismaClient, dropDatabase, type PrismaClient } from '@fathom/persistence';
import { BullMqTransport } from '@fathom/queue';
import { SandboxPool } from '@fathom/sandbox';
import { grpoTrainConfigOfRun, MetricsLog, runGrpo, runTasks, type MetricsRecord } from '@fathom/training';
import { sftWarmStart, TEST_STYLE, type GrpoFixture } from '@fathom/training/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAll, DIST } from '../../scripts/build';
import { startStack, type Stack } from '../../scripts/stack';
import { childPids, expectClose, until, untilRunStatus } from './support';

const POSTGRES = 'postgresql://postgres@127.0.0.1:5432';
const REDIS = 'redis://127.0.0.1:6379';
const databaseUrl = `${POSTGRES}/fathom_test_e2e_${process.pid}`;
const queuePrefix = `fathom-e2e-${process.pid}`;

let stack: Stack;
let prisma: PrismaClient;
let transport: BullMqTransport;
let fixture: GrpoFixture;
let runsDir: string;

beforeAll(async () => {
  // What the images run: the compiled services, and the migrate target's `node dist/cli.mjs db migrate`.
  await buildAll();
  await dropDatabase(databaseUrl);
  await promisify(execFile)(process.execPath, ['--no-node-snapshot', join(DIST, 'cli.mjs'), 'db', 'migrate'], {
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  prisma = createPrismaClient(databaseUrl);
  transport = new BullMqTransport({ redisUrl: REDIS, prefix: queuePrefix });
  fixture = await sftWarmStart();
  runsDir = await mkdtemp(join(tmpdir(), 'fathom-e2e-runs-'));
  stack = await startStack({
    // The fixture's checkpoint and tasks live in a temporary folder, outside the default data roots.
    dataRoots: [fixture.dir],
    databaseUrl,
    redisUrl: REDIS,
    queuePrefix,
    runsDir,
    rolloutWorkers: 2,
    // Short job locks, so a group whose worker is killed is taken over within seconds.
    workerEnv: { JOB_LOCK_MS: '8000', STALLED_CHECK_MS: '1000' },
    // Every rollout and eval episode runs in the env-service, its llm() answered by the worker's policy.
    envService: { datasetPath: fixture.tasks },
    // As a deployment with FATHOM_GRPC_TOKEN: the workers fetch the learner's weights with it.
    grpcToken: 'e2e-grpc-token-of-this-stack',
    compiled: true,
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await transport?.close();
  await prisma?.$disconnect();
  await dropDatabase(databaseUrl);
}, 60_000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are checked field by field in each test
type Json = any;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const reply = await fetch(`${stack.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: reply.status, body: await reply.json() };
}

/** The tiny fixture's run: 3 steps of B = 2 groups of G = 4 episodes. */
function runConfig(name: string): RunConfigInput {
  return {
    name,
    seed: 3,
    model: { checkpoint: fixture.sftFinal },
    data: { trainFile: fixture.tasks, trainSize: 8 },
    steps: 3,
    batchSize: 2,
    checkpointEvery: 1,
    grpo: { groupSize: 4, beta: 0.04 },
    reward: { tokenBudget: { alpha: 20 } },
    optimizer: { lr: 1e-3 },
    rollout: { maxTurns: 3, maxTokensPerTurn: 48, maxEpisodeTokens: 700, promptStyle: TEST_STYLE, maxInfraRetries: 0 },
  };
}

const withoutTime = (records: MetricsRecord[]) => records.map(({ time: _, ...r }) => r);

describe('FATHOM services end to end (the compiled services as the images run them, separate processes, real Redis and Postgres)', () => {
  const malformed: Record<QueueName, string> = { rollout: '', reward: '', learn: '', eval: '' };

  it('dead-letters a malformed job injected into each queue, with the reason, and keeps running', async () => {
    for (const queue of ['rollout', 'reward', 'learn'] as QueueName[]) {
      const id = `junk-${queue}`;
      malformed[queue] = id;
      const name = `${queue}.group`;
      await transport.add(
        queue,
        { id, name, data: { runId: 'nope', step: -1 } },
        {
          attempts: 3,
          backoffMs: 10,
          keepCompletedS: 60,
          keepFailedS: 60,
        },
      );
    }
    for (const queue of ['rollout', 'reward', 'learn'] as QueueName[]) {
      const letter = await until(
        `the dead letter of ${queue}`,
        async () => {
          const data = await transport.getJobData(deadLetterQueueOf(queue), deadLetterIdOf(malformed[queue]));
          return data === undefined ? undefined : DeadLetterSchema.parse(data);
        },
        30_000,
        stack,
      );
      expect(letter).toMatchObject({ kind: 'malformed', attemptsMade: 1 });
      expect(letter.reason).toMatch(new RegExp(`malformed ${queue}\\.group payload: .*step`));
    }
  });

  it('rejects an invalid run config and an unknown run with 4xx and a message naming the problem', async () => {
    const bad = await api('POST', '/runs', { name: 'x', rollout: { temperature: 0.7 } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toMatch(/temperature/);
    const unknown = await api('GET', '/runs/no-such-run');
    expect(unknown.status).toBe(404);
  });

  it('trains 3 GRPO steps through the queues and records Run, Step, RewardComponentStat, Episode and PolicyVersion', async () => {
    const servedBefore = (await stack.envServed())!;
    const created = await api('POST', '/runs', runConfig('e2e'));
    expect(created.status).toBe(201);
    const runId: string = created.body.id;
    const run = await untilRunStatus(prisma, runId, 'completed', 240_000, stack);
    expect(run).toMatchObject({ step: 3, error: null });
    // Every step was checkpointed (checkpointEvery 1), so the queues no longer keep its jobs; step 3's last learn job
    // may still be recorded as running when its checkpoint comes, and is left to its keep window.
    for (const step of [1, 2])
      for (const g of [0, 1])
        for (const queue of ['rollout', 'reward', 'learn'] as const)
          expect(
            await transport.getJobData(queue, groupJobId({ runId, step, groupId: groupId(step, g) })),
          ).toBeUndefined();

    const steps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' } });
    expect(steps.map((s) => s.step)).toEqual([1, 2, 3]);
    for (const s of steps) {
      expect(s.groupsSubmitted).toBe(2);
      expect(s.tokens).toBeGreaterThan(0);
      expect(Number.isFinite(s.rewardMean)).toBe(true);
    }
    const components = await prisma.rewardComponentStat.findMany({ where: { runId } });
    expect(components).toHaveLength(3 * 4);
    expect(new Set(components.map((c) => c.component))).toEqual(
      new Set(['format', 'correctness', 'token_budget', 'recursion_efficiency']),
    );
    const episodes = await prisma.episode.findMany({ where: { runId } });
    const excluded = steps.reduce(
      (n, s) => n + Number((s.metrics as { excluded_samples: number }).excluded_samples),
      0,
    );
    expect(episodes.length + excluded).toBe(3 * 2 * 4);
    // Every episode ran in the env-service: one reset per episode (child episodes included), and a served code step
    // per code turn; the service's own Inference endpoint answered no llm() (the workers' policy did).
    const served = (await stack.envServed())!;
    const childEpisodes = (node: Json): Json[] =>
      node.children.flatMap((child: Json) => (child.kind === 'episode' ? [child, ...childEpisodes(child)] : []));
    const children = episodes.flatMap((e) => childEpisodes(e.recursionTree));
    expect(served.resets - servedBefore.resets).toBe(3 * 2 * 4 + children.length);
    const rootCodeTurns = episodes.reduce(
      (n, e) => n + (e.transcript as { turns: { action: string }[] }).turns.filter((t) => t.action === 'code').length,
      0,
    );
    const codeSteps = served.codeSteps - servedBefore.codeSteps;
    expect(codeSteps).toBeGreaterThanOrEqual(rootCodeTurns);
    expect(codeSteps).toBeLessThanOrEqual(rootCodeTurns + children.reduce((n, c) => n + c.turns, 0));
    expect(served.serviceLlmCalls).toBe(servedBefore.serviceLlmCalls);
    for (const e of episodes) {
      expect(e.goldAnswer.length).toBeGreaterThan(0);
      expect((e.transcript as { prompt: string }).prompt).toContain('<|im_start|>');
      expect((e.recursionTree as { depth: number }).depth).toBe(0);
    }
    const versions = await prisma.policyVersion.findMany({ where: { runId }, orderBy: { version: 'asc' } });
    expect(versions[0]).toMatchObject({ version: 0, step: 0 });
    expect(versions.at(-1)!.version).toBe(run.policyVersion);
    expect(run.policyVersion).toBe(steps.filter((s) => (s.metrics as { updated: boolean }).updated).length);

    // The API reads the same rows.
    const apiSteps = await api('GET', `/runs/${runId}/steps`);
    expect(apiSteps.body.items).toHaveLength(3);

    // maxStaleness 0 and the same seed: the in-process loop computes the same metrics.
    const distributed = withoutTime(await MetricsLog.read(join(runsDir, runId, 'metrics.jsonl')));
    const parsed = RunConfigSchema.parse(runConfig('e2e'));
    const out = await mkdtemp(join(tmpdir(), 'fathom-e2e-inprocess-'));
    const pool = await SandboxPool.start({ workers: 1 });
    try {
      await runGrpo(await grpoTrainConfigOfRun(parsed, out), {
        sandbox: pool,
        tasks: await runTasks(parsed),
      });
    } finally {
      await pool.close();
    }
    const inProcess = withoutTime(await MetricsLog.read(join(out, 'metrics.jsonl')));
    expect(distributed).toHaveLength(3);
    expectClose(distributed, inProcess);
    const finalWeights = await readFile(join(runsDir, runId, 'final', 'model.safetensors'));
    expect(finalWeights.length).toBeGreaterThan(0);
  }, 400_000);

  it('stops a run mid-step through the API (the step abandoned at once) and resumes it to the same metrics as an uninterrupted run', async () => {
    const uninterrupted = await prisma.run.findFirstOrThrow({ where: { name: 'e2e', status: 'completed' } });
    // Deterministic: frozen workers hold step 1 back until the run has stopped; the learner, told of the stop
    // (run.stopping), abandons step 1 without waiting for its groups, so the run stops before any step is recorded.
    const workers = stack.services.filter((s) => s.name.startsWith('rollout-worker')).map((s) => s.child);
    for (const w of workers) w.kill('SIGSTOP');
    const created = await api('POST', '/runs', runConfig('e2e-stop'));
    const runId: string = created.body.id;
    let stop: Awaited<ReturnType<typeof api>>;
    let stopped: Awaited<ReturnType<typeof untilRunStatus>>;
    try {
      await until(
        'step 1 to be enqueued',
        async () => ((await transport.counts('rollout')).waiting >= 2 ? true : undefined),
        120_000,
        stack,
      );
      stop = await api('POST', `/runs/${runId}/stop`);
      stopped = await untilRunStatus(prisma, runId, 'stopped', 120_000, stack);
    } finally {
      for (const w of workers) w.kill('SIGCONT');
    }
    expect(stop.status).toBe(200);
    expect(stop.body.status).toBe('stopping');
    expect(stopped.step).toBe(0);
    expect((await api('POST', `/runs/${runId}/stop`)).body.status).toBe('stopped');
    const resume = await api('POST', `/runs/${runId}/resume`);
    expect(resume.body.status).toBe('running');
    await untilRunStatus(prisma, runId, 'completed', 240_000, stack);
    const columns = { step: true, rewardMean: true, loss: true, kl: true, policyVersion: true, groupsTrainable: true };
    const resumedSteps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' }, select: columns });
    const expected = await prisma.step.findMany({
      where: { runId: uninterrupted.id },
      orderBy: { step: 'asc' },
      select: columns,
    });
    expect(resumedSteps.map((s) => s.step)).toEqual([1, 2, 3]);
    expectClose(resumedSteps, expected);
    const episodes = await prisma.episode.groupBy({ by: ['step'], where: { runId }, _count: true });
    expect(episodes.map((e) => e._count).every((n) => n <= 8)).toBe(true);
  }, 400_000);

  it('serves /health and /metrics on every service after all of that', async () => {
    for (const service of stack.services) {
      const port = Number(service.ready.http_port ?? service.ready.port);
      const health = await fetch(`http://127.0.0.1:${port}/health`);
      expect(health.status, service.name).toBe(200);
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(metrics, service.name).toContain('process_cpu_seconds_total');
    }
    const learner = await (await fetch(`http://127.0.0.1:${stack.learnerHttpPort}/metrics`)).text();
    expect(learner).toMatch(/fathom_learner_steps_total\{[^}]*\} 6/);
  });

  it('runs a queued evaluation (POST /evals) on a rollout worker and records EvalResult rows', async () => {
    const queued = await api('POST', '/evals', { checkpoint: fixture.sftFinal, split: 'eval', limit: 2, seed: 1 });
    expect(queued.status).toBe(202);
    const evalId: string = queued.body.evalId;
    const rows = await until(
      'the eval rows',
      async () => {
        const found = await prisma.evalResult.findMany({ where: { evalId } });
        return found.length > 0 ? found : undefined;
      },
      180_000,
      stack,
    );
    const overall = rows.find((r) => r.taskType === 'all' && r.lengthBucket === 'all');
    expect(overall).toMatchObject({ n: 2, split: 'eval', checkpoint: fixture.sftFinal });
    expect(overall!.accuracy).toBeGreaterThanOrEqual(0);
    expect(rows.filter((r) => r.lengthBucket !== 'all').reduce((n, r) => n + r.n, 0)).toBe(2);
    const outside = await api('POST', '/evals', { checkpoint: '/no/such/checkpoint', limit: 1 });
    expect(outside.status).toBe(422);
    const absent = join(fixture.dir, 'no-such-checkpoint');
    const missing = await api('POST', '/evals', { checkpoint: absent, limit: 1 });
    expect(missing.status).toBe(202);
    const letter = await until(
      'the dead letter of the bad eval',
      async () => {
        const data = await transport.getJobData(deadLetterQueueOf('eval'), deadLetterIdOf(missing.body.jobId));
        return data === undefined ? undefined : DeadLetterSchema.parse(data);
      },
      60_000,
      stack,
    );
    expect(letter).toMatchObject({ kind: 'rejected' });
    expect(letter.reason).toContain(`no checkpoint at ${absent}`);
  }, 300_000);

  it('re-runs the group of a worker killed mid-group on another worker: same metrics, nothing lost or doubled, its env-service sessions gone', async () => {
    const uninterrupted = await prisma.run.findFirstOrThrow({ where: { name: 'e2e', status: 'completed' } });
    const service = (name: string) => stack.services.find((s) => s.name === name)!.child;
    const [worker1, worker2, learner] = ['rollout-worker-1', 'rollout-worker-2', 'learner-service'].map(service);
    // Deterministic "mid-group": frozen workers take no jobs; the learner enqueues step 1's two groups; frozen, the
    // learner cannot serve weights, so each thawed worker takes one group and holds it, waiting for the weights.
    worker1.kill('SIGSTOP');
    worker2.kill('SIGSTOP');
    const created = await api('POST', '/runs', runConfig('e2e-crash'));
    const runId: string = created.body.id;
    await until(
      'step 1 to be enqueued',
      async () => ((await transport.counts('rollout')).waiting >= 2 ? true : undefined),
      120_000,
      stack,
    );
    learner.kill('SIGSTOP');
    worker1.kill('SIGCONT');
    worker2.kill('SIGCONT');
    try {
      await until(
        'both workers to hold a group',
        async () => ((await transport.counts('rollout')).active >= 2 ? true : undefined),
        120_000,
        stack,
      );
      // Its episodes run in the env-service: the worker has no sandbox processes of its own.
      expect(childPids(worker1.pid!)).toEqual([]);
      worker1.kill('SIGKILL');
    } finally {
      learner.kill('SIGCONT');
    }
    await untilRunStatus(prisma, runId, 'completed', 300_000, stack);
    // No session of the killed worker outlives it in the env-service: its streams ended with its process.
    await until(
      'the env-service to hold no session',
      async () =>
        ((await (await fetch(`${stack.envUrl}/capabilities`)).json()) as Json).active_sessions === 0 ? true : undefined,
      10_000,
      stack,
    );
    const columns = { step: true, rewardMean: true, loss: true, kl: true, policyVersion: true, groupsTrainable: true };
    const steps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' }, select: columns });
    const expected = await prisma.step.findMany({
      where: { runId: uninterrupted.id },
      orderBy: { step: 'asc' },
      select: columns,
    });
    expectClose(steps, expected);
    const episodes = await prisma.episode.count({ where: { runId } });
    const uninterruptedEpisodes = await prisma.episode.count({ where: { runId: uninterrupted.id } });
    expect(episodes).toBe(uninterruptedEpisodes);
  }, 400_000);
});
