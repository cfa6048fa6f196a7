import { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { BullMqTransport, redisOptionsFromUrl } from './bullmq.transport';
import { deleteQueuePrefix } from './testing/redis-prefix';
import { describeTransportConformance, FAST_DELIVERY } from './testing/transport.conformance';

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
