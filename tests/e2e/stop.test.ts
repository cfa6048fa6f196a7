import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupId, groupJobId, QUEUE_NAMES, type RunConfigInput } from '@fathom/contracts';
import { createPrismaClient, dropDatabase, type PrismaClient } from '@fathom/persistence';
import { BullMqTransport, queueStats } from '@fathom/queue';
import { sftWarmStart, TEST_STYLE, type GrpoFixture } from '@fathom/training/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from '../../scripts/stack';
import { freshDatabase, until, untilRunStatus } from './support';

const POSTGRES = 'postgresql://postgres@127.0.0.1:5432';
const REDIS = 'redis://127.0.0.1:6379';
const databaseUrl = `${POSTGRES}/fathom_test_stop_${process.pid}`;
const queuePrefix = `fathom-stop-${process.pid}`;

let stack: Stack;
let prisma: PrismaClient;
let transport: BullMqTransport;
let fixture: GrpoFixture;

// The stack starts without rollout workers, so the run's first step waits on its rollout jobs for as long as the
// test needs: a stop then always lands mid-step.
beforeAll(async () => {
  await freshDatabase(databaseUrl);
  prisma = createPrismaClient(databaseUrl);
  transport = new BullMqTransport({ redisUrl: REDIS, prefix: queuePrefix });
  fixture = await sftWarmStart();
  stack = await startStack({
    // The fixture's checkpoint and tasks live in a temporary folder, outside the default data roots.
    dataRoots: [fixture.dir],
    databaseUrl,
    redisUrl: REDIS,
    queuePrefix,
    runsDir: await mkdtemp(join(tmpdir(), 'fathom-stop-runs-')),
    rolloutWorkers: 0,
  });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  await transport?.close();
  await prisma?.$disconnect();
  await dropDatabase(databaseUrl);
}, 60_000);

async function api(method: string, path: string): Promise<{ status: number; body: { id: string; status: string } }> {
  const reply = await fetch(`${stack.adminUrl}${path}`, { method });
  return { status: reply.status, body: (await reply.json()) as { id: string; status: string } };
}

/** Jobs not finished (waiting, delayed, active) and dead letters, summed over the group queues. */
async function outstanding(): Promise<{ open: number; deadLettered: number }> {
  const stats = await queueStats(transport, QUEUE_NAMES);
  return {
    open: stats.reduce((n, q) => n + q.waiting + q.delayed + q.active, 0),
    deadLettered: stats.reduce((n, q) => n + q.deadLettered, 0),
  };
}

/** The tiny fixture's run: 2 steps of B = 2 groups of G = 4 episodes. */
const runConfig = (): RunConfigInput => ({
  name: 'stop',
  seed: 5,
  model: { checkpoint: fixture.sftFinal },
  data: { trainFile: fixture.tasks, trainSize: 8 },
  steps: 2,
  batchSize: 2,
  checkpointEvery: 1,
  grpo: { groupSize: 4 },
  optimizer: { lr: 1e-3 },
  rollout: { maxTurns: 3, maxTokensPerTurn: 48, maxEpisodeTokens: 700, promptStyle: TEST_STYLE, maxInfraRetries: 0 },
});

describe('stopping a run mid-step (separate processes, real Redis and Postgres)', () => {
  let runId: string;
  let leftover: unknown;

  it('stops within seconds, marked stopped, with none of its jobs left in the queues', async () => {
    const created = await fetch(`${stack.adminUrl}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(runConfig()),
    });
    expect(created.status).toBe(201);
    runId = ((await created.json()) as { id: string }).id;
    const firstGroup = groupJobId({ runId, step: 1, groupId: groupId(1, 0) });
    leftover = await until(
      'the rollout jobs of step 1',
      () => transport.getJobData('rollout', firstGroup),
      60_000,
      stack,
    );
    expect(await outstanding()).toEqual({ open: 2, deadLettered: 0 });

    const stopAsked = Date.now();
    expect((await api('POST', `/runs/${runId}/stop`)).body.status).toBe('stopping');
    await untilRunStatus(prisma, runId, 'stopped', 20_000, stack);
    expect(Date.now() - stopAsked).toBeLessThan(10_000);
    expect(await outstanding()).toEqual({ open: 0, deadLettered: 0 });
    expect(await transport.getJobData('rollout', firstGroup)).toBeUndefined();
  }, 120_000);

  it('drops a leftover rollout job of the stopped run without retries or a dead letter', async () => {
    // What a demo killed mid-step leaves behind: a rollout job of a run that has ended, for the next workers.
    await transport.add(
      'rollout',
      { id: groupJobId({ runId, step: 1, groupId: groupId(1, 0) }), name: 'rollout.group', data: leftover },
      {
        attempts: 5,
        backoffMs: 2000,
        keepCompletedS: 3600,
        keepFailedS: 3600,
      },
    );
    await stack.addRolloutWorker();
    await until(
      'the leftover job to be dropped',
      async () => ((await transport.counts('rollout')).completed === 1 ? true : undefined),
      30_000,
      stack,
    );
    expect(await transport.counts('rollout')).toMatchObject({ failed: 0, delayed: 0, waiting: 0, active: 0 });
    expect(await outstanding()).toEqual({ open: 0, deadLettered: 0 });
  }, 120_000);

  it('resumes and completes, rolling the abandoned step out again although its job id was kept', async () => {
    expect((await api('POST', `/runs/${runId}/resume`)).status).toBe(200);
    await untilRunStatus(prisma, runId, 'completed', 180_000, stack);
    const steps = await prisma.step.findMany({ where: { runId }, orderBy: { step: 'asc' } });
    expect(steps.map((s) => s.step)).toEqual([1, 2]);
    expect((await outstanding()).deadLettered).toBe(0);
  }, 240_000);
});
