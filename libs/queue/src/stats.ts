import { QUEUE_NAMES, deadLetterQueueOf, type QueueName } from '@fathom/contracts';
import type { JobTransport, QueueCounts } from './transport';

/** One queue's job counts, as GET /queues and the metrics report them. */
export interface QueueStats extends QueueCounts {
  queue: QueueName;
  /** Jobs in the queue's dead-letter queue. */
  deadLettered: number;
}

/** Job counts of each queue and its dead-letter queue. */
export async function queueStats(
  transport: JobTransport,
  queues: readonly QueueName[] = QUEUE_NAMES,
): Promise<QueueStats[]> {
  return Promise.all(
    queues.map(async (queue) => {
      const [counts, dead] = await Promise.all([transport.counts(queue), transport.counts(deadLetterQueueOf(queue))]);
      return { queue, ...counts, deadLettered: dead.waiting };
    }),
  );
}
