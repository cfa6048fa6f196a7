import { Redis } from 'ioredis';
import { redisOptionsFromUrl } from '../bullmq.transport';

/** Each key under a queue prefix (queues, jobs, dead letters, event channels), a batch at a time. */
async function forEachKeyBatch(redis: Redis, prefix: string, batch: (keys: string[]) => Promise<void>): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) await batch(keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Deletes every key under a queue prefix, leaving the rest of a shared Redis as it was. */
export async function deleteQueuePrefix(prefix: string, redisUrl: string): Promise<void> {
  const redis = new Redis(redisOptionsFromUrl(redisUrl));
  try {
    await forEachKeyBatch(redis, prefix, async (keys) => void (await redis.del(...keys)));
  } finally {
    await redis.quit();
  }
}

/**
 * Bytes Redis holds under a queue prefix: MEMORY USAGE summed over its keys, one pipelined round trip per batch of
 * keys rather than one per key, since bench/e2e polls it every 100 ms beside the services it times.
 */
export async function queuePrefixBytes(redis: Redis, prefix: string): Promise<number> {
  let bytes = 0;
  await forEachKeyBatch(redis, prefix, async (keys) => {
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
    for (const [error, usage] of (await pipeline.exec()) ?? []) {
      if (error) throw error;
      bytes += Number(usage ?? 0);
    }
  });
  return bytes;
}
