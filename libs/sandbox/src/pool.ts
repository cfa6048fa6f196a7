import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DOC_CACHE_CAPACITY, DocCache } from './doc-cache';
import { describeBreach, SandboxPoolError, type StepError, type StepErrorCode } from './errors';
import { DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from './limits';
import { MemoryLedger, openAllowanceMb, residentMb, RESIDENT_SIZE_READABLE, stepAllowanceMb } from './memory-cap';
import { endedResult, type FromWorker, type ToWorker } from './protocol';
import { forwardWorkerStderr } from './worker-stderr';
import type {
  EpisodePriority,
  LlmHandler,
  LlmResponse,
  OpenEpisodeOptions,
  SandboxEpisode,
  SandboxPoolOptions,
  SandboxPoolStats,
  StepOptions,
  StepResult,
} from './types';

/** Set by scripts/build.ts in a compiled service: its worker bundle, from the repository root. */
declare const __FATHOM_SANDBOX_WORKER__: string | undefined;

/**
 * How a worker process starts: a compiled service forks the worker bundle; from source, worker.ts runs through tsx,
 * loaded by absolute URL (cwd-independent).
 */
function workerStart(): { entry: string; execArgv: string[] } {
  if (typeof __FATHOM_SANDBOX_WORKER__ === 'string')
    return {
      entry: fileURLToPath(new URL(`../../../${__FATHOM_SANDBOX_WORKER__}`, import.meta.url)),
      execArgv: ['--no-node-snapshot'],
    };
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return {
    entry: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv: ['--no-node-snapshot', '--import', tsx],
  };
}
const WORKER_START = workerStart();

type Totals = SandboxPoolStats['totals'];
/**
 * A step not back this long after it was sent is taken for stuck (see `PooledEpisode.stuck`): twice its wall limit,
 * and at least a second past it, so IPC and isolate disposal on a busy machine never pass for a stuck step.
 */
const STUCK_STEP_MIN_MARGIN_MS = 1_000;
function stuckDeadlineMs(wallLimitMs: number): number {
  return wallLimitMs + Math.max(wallLimitMs, STUCK_STEP_MIN_MARGIN_MS);
}
/**
 * How often a step's deadline is checked. A check that comes more than twice this late finds this process's event
 * loop stalled (a burst of synchronous work elsewhere in it, such as parsing many large request bodies at once): the
 * stall is not counted against the step, whose reply may be waiting unread behind it.
 */
const DEADLINE_CHECK_MS = 100;
/**
 * How many isolates a worker may lose to an out-of-memory V8 cannot recover from (`StepResult.brokeWorker` on a
 * `memory_limit`) before it is killed at once, its other episodes with it. Each lost isolate keeps its heap and a
 * thread until the process ends; after the first, the worker drains and is replaced once its episodes are gone.
 */
const MAX_LOST_ISOLATES = 3;
/**
 * How often a worker running steps has its resident size checked against its memory cap (see memory-cap.ts). The
 * fastest runaway measured grows a worker by ~330 MB/s, so it is stopped within ~7 MB of its cap.
 */
const MEMORY_CHECK_MS = 20;
/** The nice value of a low-priority worker's threads: the lowest scheduling priority Linux has. */
const LOW_PRIORITY_NICE = 19;
type Pending = (msg: FromWorker | null) => void;
type Request = ToWorker extends infer M ? (M extends { rid: number } ? Omit<M, 'rid'> : never) : never;

/** One supervised worker process hosting many isolates. Respawned by the pool when it dies. */
export class WorkerProcess {
  child: ChildProcess | undefined;
  ready = false;
  warm = 0;
  readonly episodes = new Map<string, PooledEpisode>();
  /** Episodes being opened on this worker (not yet in `episodes`). */
  opening = 0;
  /** Mirror of the worker's DocCache; reset whenever a new process is spawned. */
  readonly docs = new DocCache(DOC_CACHE_CAPACITY);
  private readonly pending = new Map<number, Pending>();
  /** Consecutive spawns that died before becoming ready; drives the restart backoff. */
  failedStarts = 0;
  /**
   * Steps of this process that overran their wall limit by the margin and have not come back: their isolate's
   * thread is stuck in code V8 cannot interrupt. While any is, the worker drains (takes no new episodes).
   */
  stuckSteps = 0;
  drainTimer: NodeJS.Timeout | undefined;
  /** Isolates V8 lost in this process (see `MAX_LOST_ISOLATES`); while any is, the worker drains. */
  lostIsolates = 0;
  /** Episodes opened on this process since it was spawned (for `recycleAfterEpisodes`). */
  episodesSinceSpawn = 0;
  /** Past `recycleAfterEpisodes`: drains, and is replaced once empty (see `SandboxPool.forget`). */
  retiring = false;
  /** Memory allowances of this process's running steps (see memory-cap.ts); steps are keyed by their episode. */
  memory = new MemoryLedger<PooledEpisode>();
  /** Why the supervisor killed this process, when it did so for a reason of its own (told to its episodes). */
  private abortReason: string | undefined;
  private nextRid = 1;
  private readyWaiters: { resolve: () => void; reject: (error: Error) => void; failFast: boolean }[] = [];

  constructor(
    readonly index: number,
    readonly priority: EpisodePriority,
    private readonly warmIsolates: number,
    private readonly warmMemoryMb: number,
    private readonly onMessageFromGuest: (worker: WorkerProcess, msg: Extract<FromWorker, { type: 'llm' }>) => void,
    private readonly onExit: (worker: WorkerProcess, reason: string) => void,
  ) {}

  get draining(): boolean {
    return this.stuckSteps > 0 || this.lostIsolates > 0 || this.retiring;
  }

  spawn(): void {
    this.ready = false;
    this.docs.clear();
    this.stuckSteps = 0;
    this.lostIsolates = 0;
    this.episodesSinceSpawn = 0;
    this.retiring = false;
    this.memory = new MemoryLedger();
    this.abortReason = undefined;
    clearTimeout(this.drainTimer);
    this.drainTimer = undefined;
    const nice = this.priority === 'low' ? LOW_PRIORITY_NICE : 0;
    const child = fork(WORKER_START.entry, [String(this.warmIsolates), String(this.warmMemoryMb), String(nice)], {
      execArgv: WORKER_START.execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    forwardWorkerStderr(child.stderr!);
    this.child = child;
    child.on('message', (msg: FromWorker) => this.onMessage(msg));
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      const reason = this.abortReason ?? (signal ? `killed by ${signal}` : `exited with code ${code}`);
      if (!this.ready) {
        this.failedStarts++;
        const error = new SandboxPoolError(`sandbox worker ${this.index} failed to start (${reason})`);
        this.readyWaiters = this.readyWaiters.filter((w) => (w.failFast ? (w.reject(error), false) : true));
      } else {
        this.failedStarts = 0;
      }
      this.child = undefined;
      this.ready = false;
      this.warm = 0;
      for (const [rid, resolve] of this.pending) {
        this.pending.delete(rid);
        resolve(null);
      }
      this.onExit(this, `worker process ${child.pid} ${reason}`);
    });
  }

  /** Resolves once the worker is ready; with `failFast`, rejects if the current spawn dies first. */
  whenReady(failFast = false): Promise<void> {
    if (this.ready) return Promise.resolve();
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject, failFast }));
  }

  /**
   * Sends a request; resolves with the reply, or null if the worker died first. A process that is dying closes its
   * IPC channel before its exit is seen: a request then resolves with null at once rather than raising an error
   * event that nothing could catch.
   */
  request(msg: Request): Promise<FromWorker | null> {
    const child = this.child;
    if (!child?.connected || !this.ready) return Promise.resolve(null);
    const rid = this.nextRid++;
    return new Promise((resolve) => {
      this.pending.set(rid, resolve);
      child.send({ ...msg, rid } as ToWorker, (error) => {
        if (error && this.pending.delete(rid)) resolve(null);
      });
    });
  }

  /** Sends a message that has no reply; on a closed channel it is dropped, as the process's exit ends its episodes. */
  send(msg: ToWorker): void {
    const child = this.child;
    if (child?.connected) child.send(msg, () => undefined);
  }

  /**
   * Kills the process and lets its exit run the usual way: its episodes end with `worker_crashed`, it restarts.
   * `reason` ("killed for …") replaces the signal in what the episodes are told.
   */
  abort(reason?: string): void {
    if (!this.child) return;
    this.abortReason ??= reason;
    this.child.kill('SIGKILL');
  }

  /** Resident size of the process in MiB, or null when there is none or it cannot be read. */
  residentMb(): number | null {
    const pid = this.child?.pid;
    return pid === undefined ? null : residentMb(pid);
  }

  kill(): Promise<void> {
    const child = this.child;
    if (!child) return Promise.resolve();
    this.child = undefined;
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  private onMessage(msg: FromWorker): void {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.warm = msg.warm;
        for (const waiter of this.readyWaiters.splice(0)) waiter.resolve();
        return;
      case 'warm':
        this.warm = msg.warm;
        return;
      case 'llm':
        this.onMessageFromGuest(this, msg);
        return;
      case 'opened':
      case 'open_failed':
        this.warm = msg.warm;
        break;
      case 'step':
      case 'closed':
        break;
    }
    const resolve = this.pending.get(msg.rid);
    if (!resolve) return;
    this.pending.delete(msg.rid);
    resolve(msg);
  }
}

/** The host-side handle of an episode whose isolate lives in a worker process. */
class PooledEpisode implements SandboxEpisode {
  steps = 0;
  lastActivity = Date.now();
  busy = false;
  /** Whether the worker process died while a step of this episode ran (`StepResult.brokeWorker`). */
  private diedRunning = false;
  /** Set when its worker is killed for outgrowing its memory cap while this episode's step ran alone in it. */
  private outgrewMemory = false;
  /** When the `llm()` call in flight began (null when none), and the time this step spent in finished ones. */
  llmSince: number | null = null;
  llmWaitMs = 0;
  private ended: StepError | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    readonly depth: number,
    readonly limits: Readonly<SandboxLimits>,
    readonly llm: LlmHandler | undefined,
    private readonly worker: WorkerProcess,
    private readonly pool: SandboxPool,
  ) {}

  get alive(): boolean {
    return this.ended === null;
  }

  run(code: string, options: StepOptions = {}): Promise<StepResult> {
    if (typeof code !== 'string') {
      return Promise.reject(new SandboxPoolError(`episode ${this.id}: code must be a string`));
    }
    const { wallMs } = options;
    if (wallMs !== undefined && !(typeof wallMs === 'number' && wallMs > 0 && Number.isFinite(wallMs))) {
      return Promise.reject(new SandboxPoolError(`episode ${this.id}: wallMs must be a positive number`));
    }
    const next = this.queue.then(() => this.runNow(code, wallMs));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Ends the episode at once, even mid-step (the running step then returns a `closed` error). */
  close(): Promise<void> {
    return this.closeNow({ code: 'closed', message: 'episode was closed' });
  }

  /** Ends the episode without telling the worker (it died, or the pool is shutting it down). */
  terminate(error: StepError): void {
    if (this.ended) return;
    this.ended = error;
    this.pool.forget(this, error.code === 'worker_crashed');
  }

  /** Ends the episode because its worker process died; a step in flight is marked as one that may have killed it. */
  workerDied(reason: string): void {
    if (this.busy) this.diedRunning = true;
    if (this.outgrewMemory) {
      this.terminate({ code: 'memory_limit', message: describeBreach('memory_limit', this.limits.memoryMb) });
      return;
    }
    const when = this.busy ? ' while a step of this episode ran' : '';
    this.terminate({ code: 'worker_crashed', message: `${reason}${when}; the REPL state of this episode is lost` });
  }

  /** Its step alone took its worker past the memory cap: the worker is killed, and the step ends with `memory_limit`. */
  overMemory(): void {
    this.outgrewMemory = true;
  }

  /** Closes an idle episode from the pool's reaper. */
  reap(idleMs: number): Promise<void> {
    return this.closeNow({ code: 'closed', message: `episode was closed after ${idleMs} ms without a step` });
  }

  private async runNow(code: string, wallMs: number | undefined): Promise<StepResult> {
    if (this.ended) return endedResult(this.ended);
    this.busy = true;
    this.lastActivity = Date.now();
    const wallLimitMs = Math.min(this.limits.stepWallMs, wallMs ?? Infinity);
    const started = performance.now();
    this.llmWaitMs = 0;
    const overrun = this.overrunAfter(started, stuckDeadlineMs(wallLimitMs));
    try {
      const request = this.worker.request({ type: 'run', episodeId: this.id, code, wallMs });
      // Until the worker answers, even after the step is taken for stuck: a stuck step may go on growing.
      this.pool.stepBegan(this.worker, this, request);
      const reply = await Promise.race([request, overrun.promise]);
      if (reply === 'overrun') return this.stuck(request, wallLimitMs, started);
      if (!this.ended && reply?.type !== 'step') {
        // Only reachable when the worker was restarting as the step was sent; its exit already ended us otherwise.
        this.terminate({ code: 'worker_crashed', message: 'worker process was not running; the REPL state is lost' });
      }
      if (this.ended || reply?.type !== 'step') {
        const ended = endedResult(this.ended!);
        if (!this.diedRunning) return ended;
        const result: StepResult = { ...ended, wallMs: performance.now() - started, brokeWorker: true };
        if (this.outgrewMemory) this.pool.countStep(result);
        return result;
      }
      this.steps++;
      const result = reply.result;
      this.pool.countStep(result);
      if (result.brokeWorker) this.pool.lostIsolate(this.worker);
      if (!result.alive) this.terminate(result.error ?? { code: 'closed', message: 'episode has ended' });
      return result;
    } finally {
      overrun.cancel();
      this.busy = false;
      this.lastActivity = Date.now();
    }
  }

  /**
   * Resolves once the step has used `budgetMs` of wall time, not counting time spent waiting in `llm()` nor time this
   * process's event loop was stalled (`DEADLINE_CHECK_MS`).
   */
  private overrunAfter(started: number, budgetMs: number): { promise: Promise<'overrun'>; cancel: () => void } {
    let timer: NodeJS.Timeout | undefined;
    let checked = started;
    let stalled = 0;
    const promise = new Promise<'overrun'>((resolve) => {
      const check = () => {
        const now = performance.now();
        stalled += Math.max(0, now - checked - 2 * DEADLINE_CHECK_MS);
        checked = now;
        const inLlm = this.llmWaitMs + (this.llmSince === null ? 0 : now - this.llmSince);
        const left = budgetMs - (now - started - inLlm - stalled);
        if (left <= 0) resolve('overrun');
        else timer = setTimeout(check, Math.min(left, DEADLINE_CHECK_MS));
      };
      timer = setTimeout(check, Math.min(budgetMs, DEADLINE_CHECK_MS));
    });
    return { promise, cancel: () => clearTimeout(timer) };
  }

  /**
   * The worker did not answer within the margin: its own watchdog disposed the isolate at the limit, but the
   * isolate's thread is still stuck in code V8 cannot interrupt (a huge BigInt power, say). The step ends as a
   * timeout now and the worker drains; it is killed once its other episodes are gone or its grace runs out, unless
   * the stuck step comes back first.
   */
  private stuck(request: Promise<FromWorker | null>, wallLimitMs: number, started: number): StepResult {
    const error: StepError = { code: 'timeout', message: describeBreach('timeout', wallLimitMs) };
    this.steps++;
    const result: StepResult = {
      ...endedResult(this.ended ?? error),
      wallMs: performance.now() - started,
      brokeWorker: true,
    };
    this.pool.countStep(result);
    this.terminate(error);
    this.pool.stuckStep(this.worker, request);
    return result;
  }

  private async closeNow(reason: StepError): Promise<void> {
    if (this.ended?.code === 'worker_crashed') return;
    this.terminate(reason);
    await this.worker.request({ type: 'close', episodeId: this.id });
  }
}

/**
 * A supervised pool of worker processes running one isolated-vm isolate per episode.
 *
 * Guarantees: an episode's steps run in call order; a guest can affect only its own isolate; an isolate that V8
 * loses to an out-of-memory ends only its own episode (`memory_limit`) and drains its worker; a worker that dies
 * ends only the episodes it hosted, with a `worker_crashed` error, and is restarted; `llm()` calls are forwarded to
 * the episode's `LlmHandler` on this (the supervisor's) process. Call `close()` when done: live workers keep the process running.
 */
export class SandboxPool {
  private readonly workers: WorkerProcess[] = [];
  private readonly episodes = new Map<string, PooledEpisode>();
  /** Ids of episodes being opened, reserved so two concurrent opens cannot take the same id. */
  private readonly opening = new Set<string>();
  private readonly defaults: SandboxLimits;
  private restarts = 0;
  private closing = false;
  private reaper: NodeJS.Timeout | undefined;
  /** Checks busy workers' resident sizes while any step runs (see `checkMemory`). */
  private memoryTimer: NodeJS.Timeout | undefined;
  private readonly totals: Totals = {
    stuckSteps: 0,
    lostIsolates: 0,
    episodesOpened: 0,
    ctxCacheHits: 0,
    steps: 0,
    timeouts: 0,
    cpuLimits: 0,
    memoryLimits: 0,
    crashedEpisodes: 0,
    llmCalls: 0,
    idleReaped: 0,
    recycled: 0,
    lowPriorityEpisodes: 0,
  };

  private constructor(
    private readonly options: Required<Omit<SandboxPoolOptions, 'defaults'>>,
    defaults: SandboxLimits,
  ) {
    this.defaults = defaults;
  }

  /** Starts the workers and waits until each has its warm isolates. */
  static async start(options: SandboxPoolOptions = {}): Promise<SandboxPool> {
    const resolved = {
      workers: options.workers ?? 2,
      warmIsolatesPerWorker: options.warmIsolatesPerWorker ?? 4,
      idleTimeoutMs: options.idleTimeoutMs ?? 600_000,
      stuckWorkerGraceMs: options.stuckWorkerGraceMs ?? 10_000,
      recycleAfterEpisodes: options.recycleAfterEpisodes ?? 256,
      lowPriorityWorkers: options.lowPriorityWorkers ?? 0,
    };
    if (!Number.isInteger(resolved.workers) || resolved.workers < 1) {
      throw new SandboxPoolError(`workers must be a positive integer, got ${resolved.workers}`);
    }
    if (!Number.isInteger(resolved.warmIsolatesPerWorker) || resolved.warmIsolatesPerWorker < 0) {
      throw new SandboxPoolError(
        `warmIsolatesPerWorker must be an integer >= 0, got ${resolved.warmIsolatesPerWorker}`,
      );
    }
    if (!Number.isInteger(resolved.recycleAfterEpisodes) || resolved.recycleAfterEpisodes < 0) {
      throw new SandboxPoolError(`recycleAfterEpisodes must be an integer >= 0, got ${resolved.recycleAfterEpisodes}`);
    }
    if (!Number.isInteger(resolved.lowPriorityWorkers) || resolved.lowPriorityWorkers < 0) {
      throw new SandboxPoolError(`lowPriorityWorkers must be an integer >= 0, got ${resolved.lowPriorityWorkers}`);
    }
    if (!(Number.isFinite(resolved.stuckWorkerGraceMs) && resolved.stuckWorkerGraceMs >= 0)) {
      throw new SandboxPoolError(`stuckWorkerGraceMs must be a finite number >= 0, got ${resolved.stuckWorkerGraceMs}`);
    }
    const pool = new SandboxPool(resolved, resolveLimits(DEFAULT_LIMITS, options.defaults));
    for (let i = 0; i < resolved.workers + resolved.lowPriorityWorkers; i++) {
      const worker = new WorkerProcess(
        i,
        i < resolved.workers ? 'normal' : 'low',
        resolved.warmIsolatesPerWorker,
        pool.defaults.memoryMb,
        (w, msg) => void pool.answerLlm(w, msg),
        (w, reason) => pool.onWorkerExit(w, reason),
      );
      pool.workers.push(worker);
      worker.spawn();
    }
    try {
      await Promise.all(pool.workers.map((w) => w.whenReady(true)));
    } catch (error) {
      await pool.close();
      throw error;
    }
    const sweepEvery = Math.min(30_000, Math.max(250, resolved.idleTimeoutMs / 4));
    pool.reaper = setInterval(() => pool.reapIdle(), sweepEvery);
    pool.reaper.unref();
    return pool;
  }

  /** The limits an episode gets when it overrides nothing. */
  get defaultLimits(): Readonly<SandboxLimits> {
    return this.defaults;
  }

  /**
   * Opens an episode on the least-loaded worker of its priority, taking a warm isolate and copying `ctx` into it.
   * Rejects with `SandboxPoolError` on bad options (invalid limits, duplicate id) or a closed pool.
   */
  async openEpisode(options: OpenEpisodeOptions): Promise<SandboxEpisode> {
    if (this.closing) throw new SandboxPoolError('sandbox pool is closed');
    if (typeof options.ctx !== 'string') throw new SandboxPoolError('ctx must be a string');
    const question = options.question ?? '';
    if (typeof question !== 'string') throw new SandboxPoolError('question must be a string');
    const limits = resolveLimits(this.defaults, options.limits);
    const depth = options.depth ?? 0;
    if (!Number.isInteger(depth) || depth < 0)
      throw new SandboxPoolError(`depth must be an integer >= 0, got ${depth}`);
    const priority = options.priority ?? 'normal';
    if (priority !== 'normal' && priority !== 'low') {
      throw new SandboxPoolError(`priority must be "normal" or "low", got ${JSON.stringify(priority)}`);
    }
    const id = options.id ?? randomUUID();
    if (this.episodes.has(id) || this.opening.has(id)) throw new SandboxPoolError(`episode ${id} is already open`);
    this.opening.add(id);
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const worker = await this.pickWorker(priority);
        // Counted as the worker's load until registered, so episodes opened at once spread over the workers.
        worker.opening++;
        worker.memory.grant(openAllowanceMb(options.ctx.length));
        const reply = await worker
          .request({ type: 'open', episodeId: id, ...this.ctxFor(worker, options), question, depth, limits })
          .finally(() => worker.opening--);
        if (reply?.type === 'open_failed') throw new SandboxPoolError(`episode ${id}: ${reply.message}`);
        if (reply?.type !== 'opened') continue;
        // Registered only once the worker has it, so a worker dying mid-open just means another attempt.
        const episode = new PooledEpisode(id, depth, limits, options.llm, worker, this);
        this.episodes.set(id, episode);
        worker.episodes.set(id, episode);
        this.totals.episodesOpened++;
        if (worker.priority === 'low') this.totals.lowPriorityEpisodes++;
        const recycleAfter = this.options.recycleAfterEpisodes;
        if (recycleAfter > 0 && ++worker.episodesSinceSpawn >= recycleAfter) worker.retiring = true;
        return episode;
      }
      throw new SandboxPoolError(`episode ${id}: worker died twice while opening the episode`);
    } finally {
      this.opening.delete(id);
    }
  }

  stats(): SandboxPoolStats {
    return {
      workers: this.workers.map((w) => ({
        index: w.index,
        pid: w.child?.pid,
        activeEpisodes: w.episodes.size,
        warmIsolates: w.warm,
        ready: w.ready,
        draining: w.draining,
        priority: w.priority,
      })),
      restarts: this.restarts,
      activeEpisodes: this.episodes.size,
      warm: this.workers.reduce((sum, w) => sum + w.warm, 0),
      totals: { ...this.totals },
    };
  }

  /** Closes every episode and stops the workers. Idempotent. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    clearInterval(this.reaper);
    clearInterval(this.memoryTimer);
    for (const episode of [...this.episodes.values()])
      episode.terminate({ code: 'closed', message: 'sandbox pool was closed' });
    await Promise.all(this.workers.map((w) => w.kill()));
  }

  /** @internal Called by an episode when it stops being live. */
  forget(episode: PooledEpisode, crashed: boolean): void {
    this.episodes.delete(episode.id);
    for (const worker of this.workers) {
      worker.episodes.delete(episode.id);
      if (!worker.draining || worker.episodes.size > 0 || worker.opening > 0) continue;
      if (worker.stuckSteps === 0 && worker.lostIsolates === 0) {
        // Retired: replaced by a fresh process (its exit respawns it); no episode is lost.
        worker.retiring = false;
        worker.ready = false;
        this.totals.recycled++;
      }
      worker.abort();
    }
    if (crashed) this.totals.crashedEpisodes++;
  }

  /**
   * @internal A step of this worker overran its wall limit by the margin (see `PooledEpisode.stuck`). Its other
   * episodes keep running while it drains; it is killed when they are all gone (see `forget`) or after
   * `stuckWorkerGraceMs`, and forgiven if every stuck step comes back first.
   */
  stuckStep(worker: WorkerProcess, request: Promise<FromWorker | null>): void {
    this.totals.stuckSteps++;
    worker.stuckSteps++;
    if (worker.episodes.size === 0) worker.abort();
    worker.drainTimer ??= setTimeout(() => worker.abort(), this.options.stuckWorkerGraceMs).unref();
    const child = worker.child;
    void request.then((late) => {
      if (late === null || worker.child !== child || --worker.stuckSteps > 0) return;
      clearTimeout(worker.drainTimer);
      worker.drainTimer = undefined;
    });
  }

  /**
   * @internal A step of this worker ran its isolate out of memory in a way V8 could not recover from: the process
   * goes on, but the isolate's heap and thread stay taken. The worker drains, and is replaced once its other
   * episodes are gone (see `forget`), or at once when it has lost `MAX_LOST_ISOLATES`.
   */
  lostIsolate(worker: WorkerProcess): void {
    this.totals.lostIsolates++;
    if (++worker.lostIsolates >= MAX_LOST_ISOLATES) worker.abort();
  }

  /**
   * @internal A step was sent to this worker: it is allowed its share of the worker's growth until the worker
   * answers it (or dies), and the worker's resident size is checked while it runs (see memory-cap.ts).
   */
  stepBegan(worker: WorkerProcess, episode: PooledEpisode, request: Promise<FromWorker | null>): void {
    const resident = RESIDENT_SIZE_READABLE ? worker.residentMb() : null;
    if (resident === null) return;
    const ledger = worker.memory;
    ledger.begin(episode, stepAllowanceMb(episode.limits.memoryMb), resident);
    void request.then(() => ledger.end(episode));
    this.memoryTimer ??= setInterval(() => this.checkMemory(), MEMORY_CHECK_MS).unref();
  }

  /** @internal Updates the cumulative counters from a finished step. */
  countStep(result: StepResult): void {
    this.totals.steps++;
    this.totals.llmCalls += result.llmCalls.filter((call) => call.error === undefined).length;
    const code: StepErrorCode | undefined = result.error?.code;
    if (code === 'timeout') this.totals.timeouts++;
    else if (code === 'cpu_limit' || code === 'episode_cpu_limit') this.totals.cpuLimits++;
    else if (code === 'memory_limit') this.totals.memoryLimits++;
  }

  /** Sends only the key when the worker already holds this exact document under it. */
  private ctxFor(worker: WorkerProcess, { ctx, ctxKey }: OpenEpisodeOptions): { ctx?: string; ctxKey?: string } {
    if (ctxKey === undefined) return { ctx };
    if (worker.docs.get(ctxKey) === ctx) {
      this.totals.ctxCacheHits++;
      return { ctxKey };
    }
    worker.docs.set(ctxKey, ctx);
    return { ctx, ctxKey };
  }

  /** The workers of `priority` (the normal ones when the pool has none of it), least loaded first among the ready. */
  private async pickWorker(priority: EpisodePriority): Promise<WorkerProcess> {
    const own = this.workers.filter((w) => w.priority === priority);
    const candidates = own.length > 0 ? own : this.workers.filter((w) => w.priority === 'normal');
    const ready = candidates.filter((w) => w.ready);
    if (ready.length === 0) {
      await Promise.race(candidates.map((w) => w.whenReady()));
      return this.pickWorker(priority);
    }
    // A draining worker is used only when every ready worker drains: a slow episode beats no episode.
    const healthy = ready.filter((w) => !w.draining);
    const load = (w: WorkerProcess) => w.episodes.size + w.opening;
    return (healthy.length > 0 ? healthy : ready).reduce((best, w) => (load(w) < load(best) ? w : best));
  }

  /**
   * Kills each worker that has grown past what its running steps may use (see memory-cap.ts). When one step ran in
   * it, that step ends with `memory_limit`; when several did, which of them grew is unknown, so each ends with
   * `worker_crashed`, like every other episode of the worker, and is told why.
   */
  private checkMemory(): void {
    let busy = false;
    for (const worker of this.workers) {
      const ledger = worker.memory;
      if (ledger.steps === 0) continue;
      busy = true;
      const resident = worker.residentMb();
      if (resident === null || !ledger.outgrown(resident)) continue;
      const steps = ledger.steps;
      ledger.sole?.overMemory();
      // A new ledger, so that the process is not judged again while it dies.
      worker.memory = new MemoryLedger();
      const what = steps === 1 ? 'the step' : `the ${steps} steps`;
      worker.abort(
        `killed for outgrowing the memory allowed to ${what} running in it (${Math.round(resident)} MB resident)`,
      );
    }
    if (!busy) {
      clearInterval(this.memoryTimer);
      this.memoryTimer = undefined;
    }
  }

  private onWorkerExit(worker: WorkerProcess, reason: string): void {
    for (const episode of [...worker.episodes.values()]) episode.workerDied(reason);
    worker.episodes.clear();
    if (this.closing) return;
    this.restarts++;
    // A worker that keeps dying before it is ready (broken install, no memory) must not spin the CPU.
    const delay = worker.failedStarts === 0 ? 0 : Math.min(10_000, 100 * 2 ** (worker.failedStarts - 1));
    // Not unref'd: between a worker's exit and its replacement, this timer may be all that keeps the process alive
    // while an episode waits for a worker (a recycled worker under a script with nothing else pending); the pool's
    // worker processes keep it alive until close() anyway.
    setTimeout(() => {
      if (!this.closing) worker.spawn();
    }, delay);
  }

  private async answerLlm(worker: WorkerProcess, msg: Extract<FromWorker, { type: 'llm' }>): Promise<void> {
    const episode = this.episodes.get(msg.request.episodeId);
    const reply = (body: { ok: true; response: LlmResponse } | { ok: false; message: string }) =>
      worker.send({ type: 'llm_reply', callId: msg.callId, ...body });
    if (!episode) return reply({ ok: false, message: 'episode is no longer open' });
    if (!episode.llm) return reply({ ok: false, message: 'llm() is not available in this environment' });
    const since = performance.now();
    episode.llmSince = since;
    try {
      const response = await withTimeout(episode.llm(msg.request), episode.limits.subcallTimeoutMs);
      reply({ ok: true, response: checkResponse(response) });
    } catch (error) {
      reply({ ok: false, message: error instanceof Error ? error.message : String(error) });
    } finally {
      episode.llmWaitMs += performance.now() - since;
      episode.llmSince = null;
    }
  }

  private reapIdle(): void {
    const now = Date.now();
    for (const episode of [...this.episodes.values()]) {
      if (episode.busy || now - episode.lastActivity < this.options.idleTimeoutMs) continue;
      this.totals.idleReaped++;
      void episode.reap(now - episode.lastActivity);
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`llm() sub-call timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A handler is host code we do not control; its answer crosses into the guest, so check its shape. */
function checkResponse(response: LlmResponse): LlmResponse {
  const tokens = (n: unknown) => typeof n === 'number' && Number.isFinite(n) && n >= 0;
  if (
    !response ||
    typeof response.text !== 'string' ||
    !tokens(response.promptTokens) ||
    !tokens(response.completionTokens)
  ) {
    throw new Error('llm() handler returned a malformed response');
  }
  return { text: response.text, promptTokens: response.promptTokens, completionTokens: response.completionTokens };
}
