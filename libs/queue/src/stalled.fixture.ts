/**
 * A worker process for stalled.test.ts: takes one job of the `rollout` queue (prefix and Redis from argv) with a
 * handler that never returns, prints "holding <job id>", and waits to be killed — a worker that dies holding a job.
 */
import { createLogger } from '@fathom/observability';
import { BullMqTransport } from './bullmq.transport';
import { JobConsumer } from './consumer';
import { handlerFor } from './handlers';

const [redisUrl, prefix] = process.argv.slice(2);
const transport = new BullMqTransport({ redisUrl, prefix, lockDurationMs: 1_000, stalledIntervalMs: 300 });
new JobConsumer({
  transport,
  queues: ['rollout'],
  handlers: [
    handlerFor('rollout.group', async (_job, context) => {
      process.stdout.write(`holding ${context.id}\n`);
      await new Promise(() => undefined);
    }),
  ],
  logger: createLogger({ service: 'stalled-fixture', level: 'silent' }),
}).start();
