/**
 * The transport under FATHOM's typed job layer: named queues of jobs with caller-chosen ids, workers with
 * bounded concurrency, retries with exponential backoff, and broadcast events. Payloads are opaque here; the
 * typed producer and consumer (producer.ts, consumer.ts) validate them. Two implementations pass one conformance
 * suite: BullMqTransport (Redis, across processes) and InProcessTransport (one process, no Redis).
 *
 * Guarantees every implementation gives:
 * - at most one job per (queue, id) while a job with that id is kept (waiting, active, delayed, or finished within
 *   its keep window): adding the same id again is a no-op that returns false;
 * - at-least-once delivery: a handler may see a job again after a crash or a released shutdown, so handlers must be
 *   idempotent;
 * - no ordering guarantee between jobs beyond "waiting jobs are started oldest first".
 */

/** How a job is delivered; the transport maps these to its own options. */
export interface DeliveryOptions {
  /** Tries in total, the first included (>= 1). */
  attempts: number;
  /** The n-th retry waits backoffMs · 2^(n-1). */
  backoffMs: number;
  /** Seconds a completed / failed job is kept (and so blocks a new job with its id). */
  keepCompletedS: number;
  keepFailedS: number;
}

export interface NewJob {
  /** Unique within the queue; repeated adds of one id are ignored while the first is kept. */
  id: string;
  name: string;
  data: unknown;
}

/** A job as a handler receives it. */
export interface DeliveredJob {
  id: string;
  name: string;
  /** The payload as stored, unvalidated. */
  data: unknown;
  queue: string;
  /** 1 for the first try, 2 for the first retry, … */
  attempt: number;
  maxAttempts: number;
  /** Aborted when the worker gives the job up at shutdown (the job goes back to waiting for another worker). */
  signal: AbortSignal;
}

/**
 * Thrown by a handler for a failure that retrying cannot fix (a malformed payload): the job fails at once, with
 * this message as its reason. BullMqTransport turns it into BullMQ's UnrecoverableError.
 */
export class PermanentJobError extends Error {
  override name = 'PermanentJobError';
}

export type JobHandlerFn = (job: DeliveredJob) => Promise<void>;

/** A job the transport itself failed for good, without a handler's verdict (e.g. its workers died too often). */
export interface LostJob {
  id: string;
  name: string;
  data: unknown;
  queue: string;
  attemptsMade: number;
  reason: string;
}

export interface WorkOptions {
  /** Jobs of this queue run at once by this worker. */
  concurrency: number;
  /**
   * Called when this worker finds that the transport failed a job by itself (BullMQ: "job stalled more than
   * allowable limit"), so the consumer can account for it like any other failure. Possibly called by more than one
   * worker for the same job.
   */
  onLost?: (job: LostJob) => Promise<void>;
}

export interface TransportWorker {
  /**
   * Stops taking jobs and waits up to `drainTimeoutMs` for the running ones to finish. Jobs still running then are
   * released: put back to waiting for another worker, and their handlers' signals aborted. Idempotent.
   */
  close(drainTimeoutMs: number): Promise<void>;
}

/** Jobs of one queue by state. `waiting` includes prioritised jobs. */
export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

export interface FailedJobInfo {
  id: string;
  name: string;
  reason: string;
  attemptsMade: number;
}

export type EventListener = (message: unknown) => void;

export interface SubscribeOptions {
  /**
   * Called each time the subscription is back after its connection was lost (not at the first subscribe): what was
   * published meanwhile is lost, so a subscriber that must not miss a change looks the state up again here.
   */
  onResubscribed?: () => void;
}

export interface JobTransport {
  /** Adds a job; false when a job with this id is already kept (nothing changes then). */
  add(queue: string, job: NewJob, options: DeliveryOptions): Promise<boolean>;
  /**
   * Adds several jobs; returns, for each, whether it was added. Ids repeated within the batch are added once (the
   * first); the others report false.
   */
  addMany(queue: string, jobs: readonly NewJob[], options: DeliveryOptions): Promise<boolean[]>;
  /** Starts a worker over `queue`. Several workers (here or in other processes) share a queue's jobs. */
  work(queue: string, handler: JobHandlerFn, options: WorkOptions): TransportWorker;
  counts(queue: string): Promise<QueueCounts>;
  /** A kept job's data, or undefined. */
  getJobData(queue: string, id: string): Promise<unknown>;
  /**
   * Removes a kept job that no worker is running (waiting, delayed, completed or failed), so its id is free again.
   * Returns false when there is no such job or a worker is running it (a running job is never taken from its
   * handler: it finishes or fails as usual).
   */
  remove(queue: string, id: string): Promise<boolean>;
  /** The most recently failed jobs of a queue, newest first. */
  failedJobs(queue: string, limit: number): Promise<FailedJobInfo[]>;
  /** Sends a message to every current subscriber of `channel` (fire-and-forget; late subscribers miss it). */
  publish(channel: string, message: unknown): Promise<void>;
  /** Listens on `channel` until the returned function is called. */
  subscribe(channel: string, listener: EventListener, options?: SubscribeOptions): Promise<() => Promise<void>>;
  /** Closes every worker (draining up to `drainTimeoutMs`) and every connection. */
  close(drainTimeoutMs?: number): Promise<void>;
}
