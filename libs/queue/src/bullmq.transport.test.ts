import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { BullMqTransport, redisOptionsFromUrl } from './bullmq.transport';
import { describeTransportConformance, FAST_DELIVERY } from './testing/transport.conformance';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** Deletes every key under the prefix (the suite's queues, jobs and event channels). */
async function deletePrefix(prefix: string): Promise<void> {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await redis.quit();
}

describeTransportConformance("BullMQ on the machine's Redis", async () => {
  const prefix = `fathom-test-${process.pid}-${randomUUID().slice(0, 8)}`;
  const transport = new BullMqTransport({ redisUrl, prefix });
  const raw = new Map<string, Queue>();
  return {
    transport,
    inject: async (queue, name, data, id) => {
      let q = raw.get(queue);
      if (!q) {
        q = new Queue(queue, { connection: redisOptionsFromUrl(redisUrl), prefix });
        raw.set(queue, q);
      }
      await q.add(name, data, { jobId: id, attempts: FAST_DELIVERY.attempts });
    },
    destroy: async () => {
      await transport.close();
      await Promise.all([...raw.values()].map((q) => q.close()));
      await deletePrefix(prefix);
    },
  };
});
