import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLogger } from '@fathom/observability';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { BullMqTransport, redisOptionsFromUrl } from './bullmq.transport';
import { JobConsumer } from './consumer';
import { handlerFor } from './handlers';
import { JobProducer } from './producer';
import { samplePayloads, waitFor } from './testing/transport.conformance';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const prefix = `fathom-test-stalled-${process.pid}-${randomUUID().slice(0, 8)}`;
const FIXTURE = fileURLToPath(new URL('./stalled.fixture.ts', import.meta.url));

afterAll(async () => {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

/** Starts a worker process, waits until it holds `jobId`, and kills it with SIGKILL. */
async function dieHolding(jobId: string): Promise<void> {
  const child = spawn(process.execPath, ['--no-node-snapshot', '--import', 'tsx', FIXTURE, redisUrl, prefix], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const [line] = (await once(createInterface({ input: child.stdout! }), 'line')) as [string];
    expect(line).toBe(`holding ${jobId}`);
  } finally {
    child.kill('SIGKILL');
    await once(child, 'exit');
  }
}

describe('a job whose workers die holding it twice', () => {
  it('is failed by BullMQ itself and still reaches the dead-letter queue with the reason', async () => {
    const transport = new BullMqTransport({ redisUrl, prefix, lockDurationMs: 1_000, stalledIntervalMs: 300 });
    const { jobId } = await new JobProducer(transport).enqueue(
      'rollout.group',
      samplePayloads('g-stalled')['rollout.group'],
    );
    // Each worker dies holding the job; the next one's stalled check finds the lapsed lock and re-queues it, the
    // second time marked as stalled too often. The live consumer then takes it, and BullMQ fails it at once
    // without calling the handler.
    await dieHolding(jobId);
    const handled: string[] = [];
    const lines: string[] = [];
    const consumer = new JobConsumer({
      transport,
      queues: ['rollout'],
      handlers: [handlerFor('rollout.group', async (_job, context) => void handled.push(context.id))],
      logger: createLogger({ service: 'stalled-test', write: (line) => lines.push(line) }),
    });
    await dieHolding(jobId);
    consumer.start();
    await waitFor(async () => (await transport.counts('rollout-dead')).waiting === 1, 20_000, 'the dead letter');
    const letter = (await transport.getJobData('rollout-dead', `dl-${jobId}`)) as { kind: string; reason: string };
    expect(letter).toMatchObject({
      kind: 'stalled',
      reason: expect.stringMatching(/stalled more than allowable limit/),
    });
    expect(handled).toEqual([]);
    expect(lines.some((l) => l.includes('job dead-lettered') && l.includes('"kind":"stalled"'))).toBe(true);
    await consumer.close();
    await transport.close();
  }, 60_000);
});
