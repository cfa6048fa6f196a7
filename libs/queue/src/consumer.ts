import {
  JOB_QUEUE,
  MESSAGE_SCHEMAS,
  deadLetterIdOf,
  deadLetterQueueOf,
  jobNamesOf,
  type DeadLetter,
  type JobName,
  type QueueName,
} from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import { checkHandlers, type HandlerRegistration } from './handlers';
import type { QueueMetrics } from './metrics';
import { JobProducer } from './producer';
import {
  PermanentJobError,
  type DeliveredJob,
  type JobTransport,
  type LostJob,
  type TransportWorker,
} from './transport';
import { waitOutOutages } from './transient';
import { formatIssues } from './validate';

/** How long one attempt waits out unreachable infrastructure by default (`transientRetryMs`). */
export const DEFAULT_TRANSIENT_RETRY_MS = 120_000;

/** Dead letters are kept until someone removes them; they are never delivered to a handler. */
const DEAD_LETTER_DELIVERY = { attempts: 1, backoffMs: 0, keepCompletedS: 0, keepFailedS: 0 };

export interface JobConsumerOptions {
  transport: JobTransport;
  /** The queues this process consumes; every job name routed to them needs exactly one handler. */
  queues: readonly QueueName[];
  handlers: readonly HandlerRegistration[];
  /** Jobs run at once per queue by this process (default 1). */
  concurrency?: Partial<Record<QueueName, number>>;
  /** How long close() lets running jobs finish before it releases them to other workers. */
  drainTimeoutMs?: number;
  /**
   * How long one attempt waits out unreachable infrastructure (`isTransientInfraError`: Postgres or Redis down, a
   * dropped socket), retrying its handler with backoff, before the error counts as the attempt's failure
   * (default 120 s; 0 = never wait).
   */
  transientRetryMs?: number;
  logger: Logger;
  metrics?: QueueMetrics;
}

/**
 * The typed consumer. Every delivered job is validated against its schema before a handler sees it:
 * - a malformed payload, or a job name this queue does not carry, is written to the queue's dead-letter queue with
 *   the reason and fails at once (PermanentJobError → BullMQ UnrecoverableError), and the worker goes on;
 * - a handler's PermanentJobError is dead-lettered the same way;
 * - any other error is rethrown so the transport retries with backoff; the last failed attempt is dead-lettered.
 * Construction runs the boot check (checkHandlers) and throws before any job is taken.
 */
export class JobConsumer {
  private readonly handlers: Map<JobName, HandlerRegistration>;
  private readonly workers: TransportWorker[] = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly options: JobConsumerOptions) {
    this.handlers = checkHandlers(options.handlers, options.queues.flatMap(jobNamesOf));
  }

  /** Starts one worker per consumed queue. */
  start(): void {
    for (const queue of this.options.queues) {
      const concurrency = this.options.concurrency?.[queue] ?? 1;
      this.workers.push(
        this.options.transport.work(queue, (job) => this.process(queue, job), {
          concurrency,
          onLost: (lost) => this.deadLetterLost(queue, lost),
        }),
      );
      this.options.logger.info('consuming queue', { queue, concurrency });
    }
  }

  /** Graceful shutdown: see TransportWorker.close. Safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= Promise.all(this.workers.map((w) => w.close(this.options.drainTimeoutMs ?? 30_000))).then(
      () => undefined,
    );
    return this.closing;
  }

  private async process(queue: QueueName, job: DeliveredJob): Promise<void> {
    const started = performance.now();
    const logger = this.options.logger.child({ queue, job_id: job.id, job: job.name, attempt: job.attempt });
    const registration = this.handlers.get(job.name as JobName);
    if (!registration || JOB_QUEUE[registration.name] !== queue) {
      await this.deadLetter(queue, job, 'unknown_job', `queue ${queue} carries no job named "${job.name}"`, logger);
      throw new PermanentJobError(`queue ${queue} carries no job named "${job.name}"`);
    }
    const parsed = MESSAGE_SCHEMAS[registration.name].safeParse(job.data);
    if (!parsed.success) {
      const reason = `malformed ${job.name} payload: ${formatIssues(parsed.error)}`;
      await this.deadLetter(queue, job, 'malformed', reason, logger);
      throw new PermanentJobError(reason);
    }
    // Group jobs carry run, step and group; eval.run carries its evalId. Absent fields drop out of the log line.
    const key = parsed.data as { runId?: string | null; step?: number; groupId?: string; evalId?: string };
    const jobLogger = logger.child({ run_id: key.runId, step: key.step, group_id: key.groupId, eval_id: key.evalId });
    const context = {
      id: job.id,
      name: registration.name,
      queue,
      attempt: job.attempt,
      maxAttempts: job.maxAttempts,
      signal: job.signal,
      logger: jobLogger,
    };
    try {
      // Handlers are already safe to re-run: BullMQ retries them.
      await waitOutOutages(
        () => (registration.handle as (p: unknown, c: unknown) => Promise<void>)(parsed.data, context),
        {
          budgetMs: this.options.transientRetryMs ?? DEFAULT_TRANSIENT_RETRY_MS,
          signal: job.signal,
          onWait: (wait) => {
            jobLogger.warn('infrastructure unreachable; retrying the job', wait);
            this.options.metrics?.processed.inc({ queue, name: job.name, outcome: 'outage_wait' });
          },
        },
      );
      this.observe(queue, job, 'completed', started);
    } catch (error) {
      // Released at shutdown: the job is already back in the queue for another worker; this is no failure of it.
      if (job.signal.aborted) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (error instanceof PermanentJobError) {
        await this.deadLetter(queue, job, 'rejected', reason, jobLogger);
      } else if (job.attempt >= job.maxAttempts) {
        await this.deadLetter(queue, job, 'exhausted', reason, jobLogger);
      } else {
        jobLogger.warn('job failed; will retry', { reason, max_attempts: job.maxAttempts });
        this.observe(queue, job, 'retrying', started);
      }
      throw error;
    }
  }

  /** A job the transport failed by itself (stalled too often) is dead-lettered like one whose attempts ran out. */
  private async deadLetterLost(queue: QueueName, lost: LostJob): Promise<void> {
    const logger = this.options.logger.child({ queue, job_id: lost.id, job: lost.name });
    await this.deadLetter(queue, { ...lost, attempt: lost.attemptsMade }, 'stalled', lost.reason, logger);
  }

  /**
   * Writes the job, untouched, with its reason to the dead-letter queue (a dead letter per job id, at most), then
   * announces it (`job.dead_lettered`, e.g. to the learner waiting for the group). The announcement is best effort:
   * the letter is what counts, and a subscriber that missed the event finds it when it looks the state up again.
   */
  private async deadLetter(
    queue: QueueName,
    job: Pick<DeliveredJob, 'id' | 'name' | 'data' | 'attempt'>,
    kind: DeadLetter['kind'],
    reason: string,
    logger: Logger,
  ): Promise<void> {
    const letter: DeadLetter = {
      queue,
      jobId: job.id,
      name: job.name,
      data: job.data,
      reason,
      kind,
      attemptsMade: job.attempt,
      failedAt: new Date().toISOString(),
    };
    await this.options.transport.add(
      deadLetterQueueOf(queue),
      { id: deadLetterIdOf(job.id), name: job.name, data: letter },
      DEAD_LETTER_DELIVERY,
    );
    logger.error('job dead-lettered', { kind, reason });
    this.options.metrics?.processed.inc({ queue, name: job.name, outcome: 'dead_lettered' });
    await new JobProducer(this.options.transport)
      .publish('job.dead_lettered', { queue, jobId: job.id })
      .catch((error: unknown) => logger.warn('could not announce the dead letter', { error }));
  }

  private observe(queue: QueueName, job: DeliveredJob, outcome: 'completed' | 'retrying', started: number): void {
    this.options.metrics?.processed.inc({ queue, name: job.name, outcome });
    this.options.metrics?.jobSeconds.observe({ queue, name: job.name }, (performance.now() - started) / 1000);
  }
}
