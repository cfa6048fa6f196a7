import { QueueNameSchema } from '@fathom/contracts';
import { queueStats, type FailedJobInfo, type JobTransport, type QueueStats } from '@fathom/queue';
import { AdminError } from '../errors';
import { withDeadline } from './dependencies';

/** Job counts of every queue and its dead-letter queue, and the reasons of recent failures, from the transport. */
export class QueueService {
  constructor(
    private readonly transport: JobTransport,
    private readonly timeoutMs: number,
  ) {}

  async stats(): Promise<{ queues: QueueStats[] }> {
    return { queues: await withDeadline('Redis', this.timeoutMs, () => queueStats(this.transport)) };
  }

  /** GET /queues/:name/failed: the newest failed jobs of a queue with their reasons (dead-lettered ones included). */
  async failed(name: string, limit: number): Promise<{ queue: string; items: FailedJobInfo[] }> {
    const queue = QueueNameSchema.safeParse(name);
    if (!queue.success) {
      throw new AdminError('QUEUE_NOT_FOUND', `no queue "${name}"; queues are ${QueueNameSchema.options.join(', ')}`);
    }
    const items = await withDeadline('Redis', this.timeoutMs, () => this.transport.failedJobs(queue.data, limit));
    return { queue: queue.data, items };
  }
}
