import { randomUUID } from 'node:crypto';
import { createLogger } from '@fathom/observability';
import { createPrismaClient, type PrismaClient } from '@fathom/persistence';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BullMqTransport, redisOptionsFromUrl } from './bullmq.transport';
import { JobConsumer } from './consumer';
import { handlerFor } from './handlers';
import { JobProducer } from './producer';
import { FaultProxy } from './testing/fault.proxy';
import { samplePayloads, waitFor } from './testing/transport.conformance';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const postgres = new URL(process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432');

let proxy: FaultProxy;
let prisma: PrismaClient;
let transport: BullMqTransport;
const prefix = `fathom-test-outage-${process.pid}-${randomUUID().slice(0, 8)}`;
const lines: string[] = [];
const logger = createLogger({ service: 'outage-test', write: (line) => lines.push(line) });

beforeAll(async () => {
  proxy = await FaultProxy.start({ host: postgres.hostname, port: Number(postgres.port || 5432) });
  const viaProxy = new URL(postgres);
  viaProxy.host = `127.0.0.1:${proxy.listenPort}`;
  viaProxy.pathname = '/postgres';
  prisma = createPrismaClient(viaProxy.toString());
  transport = new BullMqTransport({ redisUrl, prefix });
});

afterAll(async () => {
  await transport?.close();
  await prisma?.$disconnect();
  await proxy?.close();
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

describe('a Postgres outage while a job writes', () => {
  it('is waited out within the attempt: the job completes once the database is back, nothing dead-lettered', async () => {
    const tries: string[] = [];
    const consumer = new JobConsumer({
      transport,
      queues: ['learn'],
      handlers: [
        handlerFor('learn.group', async () => {
          try {
            await prisma.$queryRaw`SELECT 1`;
            tries.push('ok');
          } catch (error) {
            tries.push('down');
            throw error;
          }
        }),
      ],
      transientRetryMs: 30_000,
      logger,
    });
    await proxy.cut();
    consumer.start();
    const { jobId } = await new JobProducer(transport).enqueue(
      'learn.group',
      samplePayloads('g-outage')['learn.group'],
    );
    await waitFor(() => tries.length >= 2, 10_000, 'two tries against the refused database');
    await proxy.restore();
    await waitFor(async () => (await transport.counts('learn')).completed === 1, 20_000, 'completion');
    expect(tries.at(-1)).toBe('ok');
    expect(tries.filter((t) => t === 'down').length).toBeGreaterThanOrEqual(2);
    expect((await transport.counts('learn-dead')).waiting).toBe(0);
    const waits = lines.filter((l) => l.includes('infrastructure unreachable; retrying the job'));
    expect(waits.length).toBe(tries.length - 1);
    expect(JSON.parse(waits[0])).toMatchObject({ job_id: jobId, attempt: 1, try: 1 });
    await consumer.close();
  }, 60_000);

  it('is not waited out past the budget, and an error that is not an outage fails the attempt at once', async () => {
    let calls = 0;
    const consumer = new JobConsumer({
      transport,
      queues: ['reward'],
      handlers: [
        handlerFor('reward.group', async () => {
          calls++;
          if (calls === 1) throw new Error('a bug, not an outage');
          await prisma.$queryRaw`SELECT 1`;
        }),
      ],
      transientRetryMs: 1_000,
      logger,
    });
    await proxy.cut();
    consumer.start();
    const { jobId } = await new JobProducer(transport).enqueue(
      'reward.group',
      samplePayloads('g-budget')['reward.group'],
    );
    await waitFor(async () => (await transport.counts('reward-dead')).waiting === 1, 30_000, 'the dead letter');
    const letter = (await transport.getJobData('reward-dead', `dl-${jobId}`)) as { reason: string; kind: string };
    expect(letter.kind).toBe('exhausted');
    expect(letter.reason).toMatch(/reach|refused|P1001/i);
    const attempts = lines
      .filter((l) => l.includes('"job_id":"' + jobId + '"') && l.includes('job failed; will retry'))
      .map((l) => (JSON.parse(l) as { reason: string }).reason);
    expect(attempts[0]).toBe('a bug, not an outage');
    await proxy.restore();
    await consumer.close();
  }, 60_000);
});
