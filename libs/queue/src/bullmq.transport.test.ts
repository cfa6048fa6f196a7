import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BullMqTransport, redisOptionsFromUrl } from './bullmq.transport';
import { deleteQueuePrefix } from './testing/redis-prefix';
import { describeTransportConformance, FAST_DELIVERY, waitFor } from './testing/transport.conformance';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

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
      await deleteQueuePrefix(prefix, redisUrl);
    },
  };
});

describe('BullMqTransport subscriptions', () => {
  it('subscribe again when their Redis connection is lost, say so (onResubscribed), and receive what is published after', async () => {
    const prefix = `fathom-test-${process.pid}-${randomUUID().slice(0, 8)}`;
    const transport = new BullMqTransport({ redisUrl, prefix });
    const admin = new Redis(redisUrl);
    try {
      const seen: unknown[] = [];
      let resubscribed = 0;
      await transport.subscribe('news', (m) => seen.push(m), { onResubscribed: () => resubscribed++ });
      await transport.publish('news', { n: 1 });
      await waitFor(() => seen.length === 1);
      expect(resubscribed).toBe(0);
      const clients = String(await admin.client('LIST'));
      const subscriber = clients.split('\n').find((line) => line.includes(` name=fathom:${prefix}:subscriber `));
      expect(subscriber).toBeDefined();
      await admin.client('KILL', 'ID', /\bid=(\d+)/.exec(subscriber!)![1]!);
      await waitFor(() => resubscribed === 1);
      await transport.publish('news', { n: 2 });
      await waitFor(() => seen.length === 2);
      expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
    } finally {
      admin.disconnect();
      await transport.close();
    }
  });
});
