import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import {
  PermanentJobError,
  type DeliveryOptions,
  type EventListener,
  type SubscribeOptions,
  type FailedJobInfo,
  type JobHandlerFn,
  type JobTransport,
  type LostJob,
  type NewJob,
  type QueueCounts,
  type TransportWorker,
  type WorkOptions,
} from './transport';

/**
 * Events kept in each queue's BullMQ event stream (`<prefix>:<queue>:events`, written by every job transition). Nothing
 * in FATHOM reads it (no QueueEvents: FATHOM's own events go over pub/sub), and at BullMQ's default of 10,000 it grew
 * by about 1 KB per queue per GRPO step of a small run until the cap (about 1 MB per queue): kept short, a long run's
 * Redis memory stays flat (bench/e2e `redis_bytes`).
 */
export const EVENTS_STREAM_MAX_LEN = 500;

/**
 * A job whose worker died is taken over within DEFAULT_LOCK_MS + DEFAULT_STALLED_CHECK_MS (15 s), not BullMQ's
 * 30 s + 30 s: the lock is renewed every 5 s, so only a worker whose event loop stalls for 10 s loses a live job.
 */
export const DEFAULT_LOCK_MS = 10_000;
export const DEFAULT_STALLED_CHECK_MS = 5_000;

/** BullMQ's reason for a job it failed because its workers stalled on it more than `maxStalledCount` times. */
const STALLED_FAILURE = /stalled more than allowable limit/;

export interface BullMqTransportOptions {
  /** redis://[user:password@]host:port[/db] */
  redisUrl: string;
  /** Prefix of every Redis key (BullMQ's `prefix`) and event channel; one per deployment (or per test run). */
  prefix: string;
  /**
   * How long a worker's lock on a job lasts without renewal (renewed every half of it); a crashed worker's jobs go
   * back to waiting after it. Default DEFAULT_LOCK_MS (BullMQ's own is 30 s).
   */
  lockDurationMs?: number;
  /** How often workers look for jobs whose lock expired. Default DEFAULT_STALLED_CHECK_MS (BullMQ's is 30 s). */
  stalledIntervalMs?: number;
  /** Called with errors of background connections and workers (otherwise they would be unhandled). */
  onError?: (error: Error, where: string) => void;
}

/** ioredis options from a redis:// URL (BullMQ wants options or a connection, not a URL). */
export function redisOptionsFromUrl(redisUrl: string): ConnectionOptions & { host: string; port: number } {
  const url = new URL(redisUrl);
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new Error(`REDIS_URL must start with redis:// or rediss://, got ${url.protocol}`);
  }
  const db = url.pathname.length > 1 ? Number(url.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`REDIS_URL database must be a number, got ${url.pathname}`);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 6379,
    db,
    username: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    tls: url.protocol === 'rediss:' ? {} : undefined,
  };
}

function jobsOptions(options: DeliveryOptions, id: string): JobsOptions {
  return {
    jobId: id,
    attempts: options.attempts,
    backoff: { type: 'exponential', delay: options.backoffMs },
    removeOnComplete: { age: options.keepCompletedS },
    removeOnFail: { age: options.keepFailedS },
  };
}

/**
 * The transport over BullMQ (Redis): queues shared by every process that uses the same Redis and prefix.
 * See transport.ts for the guarantees. BullMQ accepts a custom job id containing ":" only when it has exactly
 * three ":"-separated parts, which is what `${runId}:${step}:${groupId}` is (ids themselves never hold ":").
 */
export class BullMqTransport implements JobTransport {
  private readonly connection: ConnectionOptions;
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Set<BullMqWorker>();
  private publisher: Redis | undefined;
  private readonly subscribers = new Set<Redis>();
  private closing: Promise<void> | undefined;

  constructor(private readonly options: BullMqTransportOptions) {
    this.connection = redisOptionsFromUrl(options.redisUrl);
  }

  async add(queue: string, job: NewJob, options: DeliveryOptions): Promise<boolean> {
    return (await this.addMany(queue, [job], options))[0];
  }

  /**
   * BullMQ's add and addBulk both return a Job built from the caller's data even when Redis already held a job with
   * that id (and kept the old one), so "was it new" is answered by looking first. Two producers racing on one id
   * may both be told true; Redis still holds one job.
   */
  async addMany(queue: string, jobs: readonly NewJob[], options: DeliveryOptions): Promise<boolean[]> {
    const q = this.queue(queue);
    const firstIndex = new Map<string, number>();
    jobs.forEach((job, i) => {
      if (!firstIndex.has(job.id)) firstIndex.set(job.id, i);
    });
    const unique = [...firstIndex.entries()];
    const existing = await Promise.all(unique.map(([id]) => q.getJobState(id)));
    const fresh = unique.filter((_, i) => existing[i] === 'unknown');
    if (fresh.length > 0) {
      await q.addBulk(
        fresh.map(([id, i]) => ({ name: jobs[i].name, data: jobs[i].data, opts: jobsOptions(options, id) })),
      );
    }
    const added = new Set(fresh.map(([, i]) => i));
    return jobs.map((_, i) => added.has(i));
  }

  work(queue: string, handler: JobHandlerFn, options: WorkOptions): TransportWorker {
    const worker = new BullMqWorker(queue, handler, options.concurrency, this.connection, this.options, () =>
      this.workers.delete(worker),
    );
    const onLost = options.onLost;
    if (onLost !== undefined)
      worker.onLost((lost) =>
        onLost(lost).catch((error: unknown) =>
          this.options.onError?.(error as Error, `lost job ${lost.id} of ${queue}`),
        ),
      );
    this.workers.add(worker);
    return worker;
  }

  async counts(queue: string): Promise<QueueCounts> {
    const c = await this.queue(queue).getJobCounts(
      'waiting',
      'prioritized',
      'waiting-children',
      'active',
      'delayed',
      'completed',
      'failed',
    );
    return {
      waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c['waiting-children'] ?? 0),
      active: c.active ?? 0,
      delayed: c.delayed ?? 0,
      completed: c.completed ?? 0,
      failed: c.failed ?? 0,
    };
  }

  async getJobData(queue: string, id: string): Promise<unknown> {
    return (await this.queue(queue).getJob(id))?.data;
  }

  /** BullMQ's remove answers 1 for an unknown id too, and 0 for a job a worker holds the lock of. */
  async remove(queue: string, id: string): Promise<boolean> {
    const q = this.queue(queue);
    const state = await q.getJobState(id);
    if (state === 'unknown' || state === 'active') return false;
    return (await q.remove(id)) === 1;
  }

  async failedJobs(queue: string, limit: number): Promise<FailedJobInfo[]> {
    const jobs = await this.queue(queue).getFailed(0, Math.max(0, limit - 1));
    return jobs
      .filter((job): job is Job => Boolean(job))
      .map((job) => ({ id: String(job.id), name: job.name, reason: job.failedReason, attemptsMade: job.attemptsMade }));
  }

  async publish(channel: string, message: unknown): Promise<void> {
    this.publisher ??= this.connect('publisher');
    await this.publisher.publish(this.channel(channel), JSON.stringify(message));
  }

  async subscribe(
    channel: string,
    listener: EventListener,
    options: SubscribeOptions = {},
  ): Promise<() => Promise<void>> {
    const subscriber = this.connect('subscriber');
    this.subscribers.add(subscriber);
    const name = this.channel(channel);
    let subscribed = false;
    // ioredis subscribes again by itself after a reconnect; this subscribe resolves once the channel is live again.
    subscriber.on('ready', () => {
      if (!subscribed) return;
      subscriber.subscribe(name).then(
        () => options.onResubscribed?.(),
        (error: Error) => this.options.onError?.(error, `redis subscriber of ${channel}`),
      );
    });
    subscriber.on('message', (from: string, text: string) => {
      if (from !== name) return;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = text;
      }
      listener(message);
    });
    await subscriber.subscribe(name);
    subscribed = true;
    return async () => {
      if (!this.subscribers.delete(subscriber)) return;
      await subscriber.quit().catch(() => undefined);
    };
  }

  close(drainTimeoutMs = 0): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.workers].map((w) => w.close(drainTimeoutMs)));
      await Promise.all([...this.queues.values()].map((q) => q.close()));
      await Promise.all([...this.subscribers].map((s) => s.quit().catch(() => undefined)));
      this.subscribers.clear();
      await this.publisher?.quit().catch(() => undefined);
    })();
    return this.closing;
  }

  private channel(name: string): string {
    return `${this.options.prefix}:events:${name}`;
  }

  /** A connection of its own (pub/sub), named `fathom:<prefix>:<role>` in Redis's CLIENT LIST. */
  private connect(role: string): Redis {
    const redis = new Redis({
      ...(this.connection as object),
      maxRetriesPerRequest: null,
      connectionName: `fathom:${this.options.prefix}:${role}`,
    });
    redis.on('error', (error: Error) => this.options.onError?.(error, `redis ${role}`));
    return redis;
  }

  private queue(name: string): Queue {
    if (this.closing) throw new Error('the BullMQ transport is closed');
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, {
        connection: this.connection,
        prefix: this.options.prefix,
        streams: { events: { maxLen: EVENTS_STREAM_MAX_LEN } },
      });
      q.on('error', (error) => this.options.onError?.(error, `queue ${name}`));
      this.queues.set(name, q);
    }
    return q;
  }
}

class BullMqWorker implements TransportWorker {
  private readonly worker: Worker;
  private readonly running = new Map<
    string,
    { job: Job; token: string; abort: AbortController; done: Promise<void> }
  >();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly queueName: string,
    handler: JobHandlerFn,
    concurrency: number,
    connection: ConnectionOptions,
    options: BullMqTransportOptions,
    private readonly onClosed: () => void,
  ) {
    this.worker = new Worker(
      queueName,
      async (job: Job, token?: string) => {
        const abort = new AbortController();
        let finish = () => {};
        const done = new Promise<void>((resolve) => (finish = resolve));
        const key = `${job.id}`;
        this.running.set(key, { job, token: token ?? '', abort, done });
        try {
          await handler({
            id: key,
            name: job.name,
            data: job.data,
            queue: queueName,
            attempt: job.attemptsMade + 1,
            maxAttempts: job.opts.attempts ?? 1,
            signal: abort.signal,
          });
        } catch (error) {
          throw error instanceof PermanentJobError ? new UnrecoverableError(error.message) : error;
        } finally {
          this.running.delete(key);
          finish();
        }
      },
      {
        connection,
        prefix: options.prefix,
        concurrency,
        lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_MS,
        stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_CHECK_MS,
      },
    );
    // A released job's handler may still settle after its lock moved on; BullMQ reports that here.
    this.worker.on('error', (error) => options.onError?.(error, `worker ${queueName}`));
  }

  /**
   * Calls `listener` for every job BullMQ fails without running the handler because it stalled more than
   * `maxStalledCount` times: the stalled check marks it, and the next worker to take it fails it at once.
   */
  onLost(listener: (job: LostJob) => void): void {
    this.worker.on('failed', (job, error) => {
      if (job === undefined || !STALLED_FAILURE.test(error.message)) return;
      listener({
        id: `${job.id}`,
        name: job.name,
        data: job.data,
        queue: this.queueName,
        attemptsMade: job.attemptsMade,
        reason: `${error.message}: its workers died or hung while holding it (${job.stalledCounter} stall(s))`,
      });
    });
  }

  close(drainTimeoutMs: number): Promise<void> {
    this.closing ??= (async () => {
      await this.worker.pause(true);
      const all = Promise.all([...this.running.values()].map((r) => r.done)).then(() => true);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), drainTimeoutMs)));
      const drained = await Promise.race([all, timeout]);
      clearTimeout(timer);
      for (const { job, token, abort } of this.running.values()) {
        await job.moveToWait(token).catch(() => undefined);
        abort.abort(new Error(`worker of ${this.queueName} shut down; job ${job.id} released`));
      }
      // A drained worker closes gracefully, so BullMQ records the completion of jobs whose handlers just returned;
      // after releasing jobs it closes at once, not waiting for handlers that no longer own their jobs.
      await this.worker.close(!drained);
      this.onClosed();
    })();
    return this.closing;
  }
}
