import type { StepError } from './errors';
import type { SandboxLimits } from './limits';

/** One `llm(prompt, chunk?)` call made by guest code, as the pluggable handler on the host receives it. */
export interface LlmRequest {
  prompt: string;
  /** The slice of the document the guest passed, if any. */
  chunk?: string;
  /** Depth of this sub-call: the calling episode's depth + 1. */
  depth: number;
  /** Episode that made the call. */
  episodeId: string;
  /** Sub-call tokens the episode has left; a handler should cap its generation to this. */
  tokenBudget: number;
}

export interface LlmResponse {
  text: string;
  promptTokens: number;
  completionTokens: number;
}

/**
 * Answers guest `llm()` calls. At depth `d < maxDepth` a handler may open a child episode with
 * `depth: d` over the chunk (recursion); at `d === maxDepth` it should return a plain completion.
 * A rejection becomes an `Error` thrown inside the guest (the model sees its message), never a host crash.
 */
export type LlmHandler = (req: LlmRequest) => Promise<LlmResponse>;

/** One executed or refused `llm()` call, in call order; a node of the episode's recursion tree. */
export interface LlmCallRecord {
  depth: number;
  promptChars: number;
  chunkChars: number;
  promptTokens: number;
  completionTokens: number;
  wallMs: number;
  /** Why the call was refused or failed; absent when it returned text. */
  error?: string;
}

export interface StepResult {
  /** Captured `print`/`console.log` output, ending with a truncation marker when chars were cut. */
  stdout: string;
  /** Output characters cut beyond `maxOutputChars`. */
  truncatedChars: number;
  error: StepError | null;
  /** Names of the globals the guest has defined so far (the first 100, in definition order, each cut to 80 chars). */
  variables: string[];
  /**
   * A short form of each of `variables`' values, in the same order: a string quoted, an array as `Array(n)` and its
   * first 5 items, anything else as `print` shows it; each cut to 200 characters, an accessor shown as `[accessor]`.
   * Absent where the sandbox does not show values (a remote OpenEnv server's).
   */
  values?: string[];
  /** CPU time of the step inside the isolate, in ms. */
  cpuMs: number;
  /** Wall time of the step as seen by the worker, in ms (including `llm()` waits). */
  wallMs: number;
  /** `llm()` calls made during this step. */
  llmCalls: LlmCallRecord[];
  /** False once the episode can take no further step (limit breach, crash, close). */
  alive: boolean;
  /**
   * The final answer the cell gave by calling `answer(value)` (the first call's value, as `print` would show it),
   * or null. It stands even when the cell threw after the call; the caller ends the episode with it.
   */
  answer: string | null;
  /**
   * Set when this step may have broken its worker process: the process died while the step ran (`worker_crashed`;
   * this step, or another running beside it, may be what killed it), the step ran its isolate out of memory in a way
   * V8 could not recover from (`memory_limit`: a `Map` grown without bound, say; the process goes on, but drains and
   * is replaced), or the step overran its wall limit in code V8 cannot interrupt (`timeout`; the worker then drains
   * and is replaced, as `Array(1e9).fill(0)` makes it).
   */
  brokeWorker?: true;
  /** The reward the environment gave for this step (OpenEnv's `reward`), where it gives one; FATHOM's pool never does. */
  reward?: number;
}

export interface OpenEpisodeOptions {
  /** The document, bound to the guest global `ctx` (copied into the isolate once). */
  ctx: string;
  /**
   * A stable name of this exact document (e.g. the task id). Workers keep recently used documents under their
   * key, so opening another episode over the same document skips sending it to the worker again. The document
   * itself is still compared on every open, so a key reused for different text is only slower, never wrong.
   */
  ctxKey?: string;
  /**
   * The question the episode answers, bound to the guest global `question` (a string; '' when absent). It is
   * read-only: the property is non-writable and non-configurable, so an assignment or a top-level
   * `var question = …` in a cell is silently ignored and every later cell still sees the original text. Code can
   * therefore take the question's key at run time (`question.match(/the (.+)\?/)[1]`) instead of spelling it.
   */
  question?: string;
  /** Caller-chosen id (e.g. the OpenEnv episode_id); a random UUID otherwise. Must be unique among open episodes. */
  id?: string;
  /** Recursion depth of this episode: 0 for a root episode, d for the child opened by a depth-d sub-call. */
  depth?: number;
  /** Overrides of the pool's default limits. */
  limits?: Partial<SandboxLimits>;
  /** Handler of guest `llm()` calls; without one every `llm()` call throws "llm() is not available". */
  llm?: LlmHandler;
  /**
   * Which workers host the episode: `low` puts it on the pool's low-priority workers (`lowPriorityWorkers`), whose
   * threads the OS schedules behind every other worker's, so that a client that keeps running into its limits cannot
   * take CPU from the others. A pool without low-priority workers hosts it like any other. Default: `normal`.
   */
  priority?: EpisodePriority;
}

/** Scheduling class of an episode's worker process (see `OpenEpisodeOptions.priority`). */
export type EpisodePriority = 'normal' | 'low';

export interface SandboxPoolOptions {
  /** Worker processes (each hosts many isolates). Default: 2. */
  workers?: number;
  /** Pre-created isolates kept ready per worker so `openEpisode` skips isolate start-up. Default: 4. */
  warmIsolatesPerWorker?: number;
  /** Episodes with no `run()` for this long are closed and their isolates disposed. Default: 10 min. */
  idleTimeoutMs?: number;
  /** Default limits of every episode (merged onto `DEFAULT_LIMITS`). */
  defaults?: Partial<SandboxLimits>;
  /**
   * How long a worker with a stuck step (one that overran twice its wall limit in code V8 cannot interrupt, such as
   * a huge BigInt power) keeps serving its other episodes before it is killed and restarted. Short, because some
   * stuck steps keep allocating outside the isolate's heap limit (a 100M-character regex replace grows the worker
   * by ~60 MB/s). Default: 10 s.
   */
  stuckWorkerGraceMs?: number;
  /**
   * A worker that has hosted this many episodes stops taking new ones (when another worker can) and is replaced by
   * a fresh process once its last episode closes: V8 does not give disposed isolates' memory back to the OS, so a
   * long-lived worker keeps about half of its peak (laverdet/isolated-vm#281). 0 = never. Default: 256.
   */
  recycleAfterEpisodes?: number;
  /**
   * Extra worker processes, at the OS's lowest scheduling priority (nice 19), that host only episodes opened with
   * `priority: 'low'`. Default: 0.
   */
  lowPriorityWorkers?: number;
}

export interface WorkerStats {
  index: number;
  pid: number | undefined;
  activeEpisodes: number;
  warmIsolates: number;
  ready: boolean;
  /** Whether the worker takes no new episodes while it drains (a stuck step, a lost isolate, or recycling). */
  draining: boolean;
  /** Which episodes it hosts: `low` only those opened with `priority: 'low'`, at nice 19. */
  priority: EpisodePriority;
}

export interface SandboxPoolStats {
  workers: WorkerStats[];
  /** Worker processes restarted after dying (OOM abort, kill). */
  restarts: number;
  activeEpisodes: number;
  /** Warm isolates ready across all workers. */
  warm: number;
  /** Cumulative counters since start, for metrics. */
  totals: {
    /** Steps answered as a timeout by the pool because their worker did not answer within twice the wall limit. */
    stuckSteps: number;
    /** Isolates V8 lost to an out-of-memory it could not recover from; each ended one episode and drained a worker. */
    lostIsolates: number;
    episodesOpened: number;
    /** Opens that found their `ctxKey` document already in the worker. */
    ctxCacheHits: number;
    steps: number;
    timeouts: number;
    cpuLimits: number;
    memoryLimits: number;
    /** Episodes ended by their worker's death. */
    crashedEpisodes: number;
    llmCalls: number;
    idleReaped: number;
    /** Workers replaced after `recycleAfterEpisodes` episodes (also counted in `restarts`). */
    recycled: number;
    /** Episodes opened on a low-priority worker. */
    lowPriorityEpisodes: number;
  };
}

export interface StepOptions {
  /** Lowers this step's wall-time limit, in ms (e.g. OpenEnv's `timeout_s`); never raises it above `stepWallMs`. */
  wallMs?: number;
}

/** A live REPL episode. Steps run one at a time in call order. */
export interface SandboxEpisode {
  readonly id: string;
  readonly depth: number;
  readonly limits: Readonly<SandboxLimits>;
  /** Whether the episode still accepts steps. */
  readonly alive: boolean;
  /** Steps run so far. */
  readonly steps: number;
  /**
   * Runs one cell of guest code. Never rejects for anything the guest does; see `StepResult.error`.
   * Rejects with `SandboxPoolError` only for bad arguments.
   */
  run(code: string, options?: StepOptions): Promise<StepResult>;
  /**
   * Gives the environment the episode's final answer, written as text rather than by a cell's `answer()`, so that
   * it can score it (OpenEnv REPLEnv's final action): only episodes of an environment that rewards answers have it.
   */
  submit?(answer: string): Promise<StepResult>;
  /** Disposes the isolate. Idempotent. */
  close(): Promise<void>;
}
