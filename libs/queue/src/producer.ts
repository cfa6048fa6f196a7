import {
  JOB_OPTIONS,
  JOB_QUEUE,
  MESSAGE_SCHEMAS,
  jobIdOf,
  type EventName,
  type EventPayload,
  type JobName,
  type JobPayload,
  type QueueJobOptions,
  type QueueName,
} from '@fathom/contracts';
import { isDeepStrictEqual } from 'node:util';
import { QueueError } from './errors';
import type { JobTransport, NewJob } from './transport';
import { formatIssues } from './validate';

/** What an enqueue did: the job id, and whether a new job was created (false: one with this id was kept). */
export interface EnqueueResult {
  jobId: string;
  added: boolean;
}

/**
 * The typed producer. Every payload is validated against its schema before it reaches the transport (an invalid
 * payload throws QueueError INVALID_PAYLOAD and nothing is enqueued), and every job gets its deterministic id
 * `${runId}:${step}:${groupId}`, so a producer that repeats itself after a crash creates no second job.
 */
export class JobProducer {
  constructor(
    private readonly transport: JobTransport,
    private readonly options: Readonly<Record<QueueName, QueueJobOptions>> = JOB_OPTIONS,
  ) {}

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>): Promise<EnqueueResult> {
    const job = this.prepare(name, payload);
    const added = await this.transport.add(JOB_QUEUE[name], job, this.options[JOB_QUEUE[name]]);
    return { jobId: job.id, added };
  }

  /**
   * Enqueues many jobs of one name in one round trip. All payloads are validated first (one bad payload enqueues
   * none). A job id repeated in the batch with an equal payload is enqueued once; with a different payload it is a
   * producer bug and throws CONFLICTING_DUPLICATE.
   */
  async enqueueMany<N extends JobName>(name: N, payloads: readonly JobPayload<N>[]): Promise<EnqueueResult[]> {
    const jobs = payloads.map((payload) => this.prepare(name, payload));
    const seen = new Map<string, NewJob>();
    for (const job of jobs) {
      const first = seen.get(job.id);
      if (first && !isDeepStrictEqual(first.data, job.data)) {
        throw new QueueError('CONFLICTING_DUPLICATE', `job ${job.id} (${name})`, { jobId: job.id });
      }
      seen.set(job.id, first ?? job);
    }
    const added = await this.transport.addMany(JOB_QUEUE[name], jobs, this.options[JOB_QUEUE[name]]);
    return jobs.map((job, i) => ({ jobId: job.id, added: added[i] }));
  }

  /** Broadcasts a validated event to every subscriber. */
  async publish<E extends EventName>(name: E, payload: EventPayload<E>): Promise<void> {
    await this.transport.publish(name, validated(name, payload));
  }

  private prepare<N extends JobName>(name: N, payload: JobPayload<N>): NewJob {
    const data = validated(name, payload);
    return { id: jobIdOf(name, data as JobPayload<N>), name, data };
  }
}

function validated(name: JobName | EventName, payload: unknown): unknown {
  const parsed = MESSAGE_SCHEMAS[name].safeParse(payload);
  if (!parsed.success) {
    throw new QueueError('INVALID_PAYLOAD', `${name}: ${formatIssues(parsed.error)}`, parsed.error.issues);
  }
  return parsed.data;
}
