import { EventEmitter } from 'node:events';
import {
  PermanentJobError,
  type DeliveryOptions,
  type EventListener,
  type SubscribeOptions,
  type FailedJobInfo,
  type JobHandlerFn,
  type JobTransport,
  type NewJob,
  type QueueCounts,
  type TransportWorker,
  type WorkOptions,
} from './transport';

type JobState = 'waiting' | 'active' | 'delayed' | 'completed' | 'failed';

interface MemoryJob {
  id: string;
  name: string;
  data: unknown;
  options: DeliveryOptions;
  state: JobState;
  attemptsMade: number;
  failedReason?: string;
  finishedAt?: number;
  /** Bumped on every delivery, so a released delivery's late result is ignored. */
  delivery: number;
  timer?: NodeJS.Timeout;
}

interface MemoryQueue {
  jobs: Map<string, MemoryJob>;
  waiting: string[];
  workers: Set<MemoryWorker>;
}

/**
 * The transport inside one process, for tests and single-process runs: the same guarantees as BullMqTransport
 * (see transport.ts) without Redis. Data is cloned on add, as a serialising transport would.
 */
export class InProcessTransport implements JobTransport {
  private readonly queues = new Map<string, MemoryQueue>();
  private readonly events = new EventEmitter();
  private closed = false;

  constructor() {
    this.events.setMaxListeners(0);
  }

  async add(queue: string, job: NewJob, options: DeliveryOptions): Promise<boolean> {
    return this.addOne(this.queue(queue), job, options);
  }

  async addMany(queue: string, jobs: readonly NewJob[], options: DeliveryOptions): Promise<boolean[]> {
    const q = this.queue(queue);
    return jobs.map((job) => this.addOne(q, job, options));
  }

  work(queue: string, handler: JobHandlerFn, options: WorkOptions): TransportWorker {
    this.assertOpen();
    const worker = new MemoryWorker(queue, this.queue(queue), handler, options.concurrency, this);
    worker.pump();
    return worker;
  }

  async counts(queue: string): Promise<QueueCounts> {
    const counts: QueueCounts = { waiting: 0, active: 0, delayed: 0, completed: 0, failed: 0 };
    const q = this.queue(queue);
    this.prune(q);
    for (const job of q.jobs.values()) counts[job.state] += 1;
    return counts;
  }

  async getJobData(queue: string, id: string): Promise<unknown> {
    return this.queue(queue).jobs.get(id)?.data;
  }

  async remove(queue: string, id: string): Promise<boolean> {
    const q = this.queue(queue);
    const job = q.jobs.get(id);
    if (job === undefined || job.state === 'active') return false;
    clearTimeout(job.timer);
    q.jobs.delete(id);
    return true;
  }

  async failedJobs(queue: string, limit: number): Promise<FailedJobInfo[]> {
    return [...this.queue(queue).jobs.values()]
      .filter((job) => job.state === 'failed')
      .sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0))
      .slice(0, limit)
      .map((job) => ({ id: job.id, name: job.name, reason: job.failedReason ?? '', attemptsMade: job.attemptsMade }));
  }

  async publish(channel: string, message: unknown): Promise<void> {
    this.assertOpen();
    const copy = structuredClone(message);
    // Asynchronous like a pub/sub round trip: a publisher never runs its subscribers' code inline.
    setImmediate(() => this.events.emit(channel, copy));
  }

  /** An in-process subscription has no connection to lose: `onResubscribed` is never called. */
  async subscribe(channel: string, listener: EventListener, _options?: SubscribeOptions): Promise<() => Promise<void>> {
    this.assertOpen();
    this.events.on(channel, listener);
    return async () => {
      this.events.off(channel, listener);
    };
  }

  async close(drainTimeoutMs = 0): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const workers = [...this.queues.values()].flatMap((q) => [...q.workers]);
    await Promise.all(workers.map((w) => w.close(drainTimeoutMs)));
    for (const q of this.queues.values()) for (const job of q.jobs.values()) clearTimeout(job.timer);
    this.events.removeAllListeners();
  }

  /** Called by a worker when a delivery settles. */
  settle(q: MemoryQueue, job: MemoryJob, error: unknown): void {
    if (error === undefined) {
      job.state = 'completed';
      job.finishedAt = Date.now();
      return;
    }
    job.attemptsMade += 1;
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof PermanentJobError || job.attemptsMade >= job.options.attempts) {
      job.state = 'failed';
      job.failedReason = reason;
      job.finishedAt = Date.now();
      return;
    }
    job.state = 'delayed';
    job.timer = setTimeout(
      () => {
        job.timer = undefined;
        job.state = 'waiting';
        q.waiting.push(job.id);
        this.pumpAll(q);
      },
      job.options.backoffMs * 2 ** (job.attemptsMade - 1),
    );
  }

  /** Puts a job given up at shutdown back at the head of the line. */
  release(q: MemoryQueue, job: MemoryJob): void {
    job.delivery += 1;
    job.state = 'waiting';
    q.waiting.unshift(job.id);
  }

  pumpAll(q: MemoryQueue): void {
    for (const worker of q.workers) worker.pump();
  }

  private addOne(q: MemoryQueue, job: NewJob, options: DeliveryOptions): boolean {
    this.assertOpen();
    this.prune(q);
    if (q.jobs.has(job.id)) return false;
    q.jobs.set(job.id, {
      id: job.id,
      name: job.name,
      data: structuredClone(job.data),
      options,
      state: 'waiting',
      attemptsMade: 0,
      delivery: 0,
    });
    q.waiting.push(job.id);
    this.pumpAll(q);
    return true;
  }

  /** Forgets finished jobs past their keep window, as BullMQ's removeOnComplete/removeOnFail age does. */
  private prune(q: MemoryQueue): void {
    const now = Date.now();
    for (const [id, job] of q.jobs) {
      const keepS = job.state === 'completed' ? job.options.keepCompletedS : job.options.keepFailedS;
      if (job.finishedAt !== undefined && now - job.finishedAt > keepS * 1000) q.jobs.delete(id);
    }
  }

  private queue(name: string): MemoryQueue {
    let q = this.queues.get(name);
    if (!q) {
      q = { jobs: new Map(), waiting: [], workers: new Set() };
      this.queues.set(name, q);
    }
    return q;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the in-process transport is closed');
  }
}

class MemoryWorker implements TransportWorker {
  private readonly running = new Map<MemoryJob, { done: Promise<void>; abort: AbortController }>();
  private closing: Promise<void> | undefined;

  constructor(
    private readonly name: string,
    private readonly q: MemoryQueue,
    private readonly handler: JobHandlerFn,
    private readonly concurrency: number,
    private readonly transport: InProcessTransport,
  ) {
    q.workers.add(this);
  }

  pump(): void {
    while (!this.closing && this.running.size < this.concurrency && this.q.waiting.length > 0) {
      const job = this.q.jobs.get(this.q.waiting.shift() as string);
      if (!job || job.state !== 'waiting') continue;
      this.start(job);
    }
  }

  close(drainTimeoutMs: number): Promise<void> {
    this.closing ??= (async () => {
      const all = Promise.all([...this.running.values()].map((r) => r.done));
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainTimeoutMs)));
      await Promise.race([all, timedOut]);
      clearTimeout(timer);
      for (const [job, run] of this.running) {
        this.transport.release(this.q, job);
        run.abort.abort(new Error(`worker of ${this.name} shut down; job ${job.id} released`));
      }
      this.running.clear();
      this.q.workers.delete(this);
      this.transport.pumpAll(this.q);
    })();
    return this.closing;
  }

  private start(job: MemoryJob): void {
    job.state = 'active';
    job.delivery += 1;
    const delivery = job.delivery;
    const abort = new AbortController();
    const done = (async () => {
      let error: unknown;
      try {
        await this.handler({
          id: job.id,
          name: job.name,
          data: structuredClone(job.data),
          queue: this.name,
          attempt: job.attemptsMade + 1,
          maxAttempts: job.options.attempts,
          signal: abort.signal,
        });
      } catch (caught) {
        error = caught ?? new Error('handler threw undefined');
      }
      if (job.delivery !== delivery) return;
      this.running.delete(job);
      this.transport.settle(this.q, job, error);
      this.transport.pumpAll(this.q);
    })();
    this.running.set(job, { done, abort });
  }
}
