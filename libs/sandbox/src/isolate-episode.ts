import ivm from 'isolated-vm';
import { depthRefusal, describeBreach, describeOversize, type StepError } from './errors';
import { GUEST_PRELUDE } from './guest-prelude';
import type { SandboxLimits } from './limits';
import { rewriteTopLevel } from './rewrite';
import type { LlmCallRecord, LlmRequest, LlmResponse, StepResult } from './types';

/** Forwards an admitted `llm()` call to the supervisor; resolves with the handler's answer or rejects. */
export type LlmForwarder = (request: LlmRequest) => Promise<LlmResponse>;

type Breach = 'timeout' | 'cpu_limit' | 'episode_cpu_limit';
const MAX_CALL_RECORDS_PER_STEP = 256;
const WATCHDOG_TICK_MS = 2;

/** A prepared isolate: context set up by the prelude, no `ctx` yet, not bound to an episode. */
export class WarmIsolate {
  /** The episode whose `llm()` calls the bridge currently serves; set when the isolate is taken. */
  owner: IsolateEpisode | null = null;
  /**
   * Set when V8 lost this isolate to an out-of-memory it could not recover from (see `create`). Its thread never
   * returns: nothing may touch the isolate again, disposing it included.
   */
  lost = false;

  private constructor(
    readonly isolate: ivm.Isolate,
    readonly context: ivm.Context,
    readonly step: ivm.Reference<
      (
        code: string,
        maxOutputChars: number,
        maxAnswerChars: number,
        maxLlmPromptChars: number,
        maxLlmChunkChars: number,
      ) => [number, string]
    >,
    readonly drain: ivm.Reference<() => [string, number, string, string | null, string[]]>,
  ) {}

  /**
   * Some allocations fail past the isolate's memory limit in a way V8 cannot recover from (a `Map`, `Set` or
   * `WeakMap` grown without bound, an object given millions of keys: laverdet/isolated-vm#107 and #527). Without
   * `onCatastrophicError` V8 then aborts the whole worker process, and every episode it hosts is lost. With it, only
   * the isolate's thread stops for good: `onLost` is called (on the process's main thread) with the isolate, whose
   * episode ends with `memory_limit`, while the process and its other isolates go on.
   */
  static create(memoryMb: number, onLost: (warm: WarmIsolate) => void): WarmIsolate {
    // The isolate and the bridge are created before the WarmIsolate they serve, so they find it through this holder.
    const holder: { warm?: WarmIsolate } = {};
    const isolate = new ivm.Isolate({
      memoryLimit: memoryMb,
      onCatastrophicError: () => {
        const warm = holder.warm;
        if (!warm || warm.lost) return;
        warm.lost = true;
        warm.owner?.isolateLost();
        onLost(warm);
      },
    });
    const context = isolate.createContextSync();
    const setup = isolate.compileScriptSync(GUEST_PRELUDE).runSync(context, { reference: true });
    const bridge = new ivm.Reference(
      async (prompt: unknown, chunk: unknown, promptChars: unknown, chunkChars: unknown) => {
        const owner = holder.warm?.owner;
        return owner ? owner.llmFromGuest(prompt, chunk, promptChars, chunkChars) : 'ellm() is not available';
      },
    );
    const entries = setup.applySync(undefined, [bridge], { result: { reference: true } }) as ivm.Reference<unknown[]>;
    const step = entries.getSync(0, { reference: true }) as WarmIsolate['step'];
    const drain = entries.getSync(1, { reference: true }) as WarmIsolate['drain'];
    holder.warm = new WarmIsolate(isolate, context, step, drain);
    return holder.warm;
  }
}

interface ActiveStep {
  cpuStart: bigint;
  cpuLimitMs: number;
  cpuBreach: Breach;
  wallLimitMs: number;
  wallStart: number;
  llmWaitMs: number;
  llmSince: number | null;
  breach: Breach | null;
  /** Last CPU reading of the watchdog, kept because a disposed isolate no longer reports its time. */
  cpuMs: number;
  calls: LlmCallRecord[];
  /** Ends the step at once when V8 loses the isolate mid-step (its own call into the isolate never returns). */
  lose: () => void;
}

/** Watches every running step of this worker; one timer for all of them. */
class Watchdog {
  private readonly active = new Map<IsolateEpisode, ActiveStep>();
  private timer: NodeJS.Timeout | undefined;

  add(episode: IsolateEpisode, step: ActiveStep): void {
    this.active.set(episode, step);
    this.timer ??= setInterval(() => this.tick(), WATCHDOG_TICK_MS);
  }

  remove(episode: IsolateEpisode): void {
    this.active.delete(episode);
    if (this.active.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private tick(): void {
    const now = performance.now();
    for (const [episode, step] of this.active) {
      if (step.breach) continue;
      const cpuMs = episode.cpuSince(step);
      step.cpuMs = cpuMs;
      const llmWait = step.llmWaitMs + (step.llmSince === null ? 0 : now - step.llmSince);
      if (cpuMs > step.cpuLimitMs) step.breach = step.cpuBreach;
      else if (now - step.wallStart - llmWait > step.wallLimitMs) step.breach = 'timeout';
      if (step.breach) episode.disposeIsolate();
    }
  }
}

const watchdog = new Watchdog();

/**
 * The worker-side episode: one isolate, its limits and its `llm()` accounting. `run` never throws for
 * anything the guest does.
 */
export class IsolateEpisode {
  private steps = 0;
  private cpuUsedMs = 0;
  private llmCalls = 0;
  private subcallTokens = 0;
  private ended: StepError | null = null;
  private current: ActiveStep | null = null;
  /** Globals as of the last completed step, reported again for a cell that did not parse, and their values. */
  private variables: string[] = [];
  private values: string[] = [];

  constructor(
    readonly id: string,
    readonly depth: number,
    readonly limits: SandboxLimits,
    private readonly warm: WarmIsolate,
    ctx: string,
    question: string,
    private readonly forward: LlmForwarder,
  ) {
    warm.owner = this;
    warm.context.global.setSync('ctx', ctx);
    // Read-only so a cell cannot change what later cells (and the policy's own regexes) read as the question.
    warm.context.evalClosureSync(
      `Object.defineProperty(globalThis, 'question', { value: $0, writable: false, configurable: false, enumerable: false })`,
      [question],
    );
  }

  /** CPU ms the isolate spent since the step began. */
  cpuSince(step: ActiveStep): number {
    const { isolate, lost } = this.warm;
    return isolate.isDisposed || lost ? step.cpuMs : Number(isolate.cpuTime - step.cpuStart) / 1e6;
  }

  disposeIsolate(): void {
    if (!this.warm.isolate.isDisposed && !this.warm.lost) this.warm.isolate.dispose();
  }

  /** V8 lost this episode's isolate (see `WarmIsolate.create`): the running step, if any, ends now, and the episode. */
  isolateLost(): void {
    watchdog.remove(this);
    if (this.current) this.current.lose();
    else this.ended ??= this.outOfMemory();
  }

  close(): void {
    this.ended ??= { code: 'closed', message: 'episode was closed' };
    this.warm.owner = null;
    this.disposeIsolate();
  }

  /** `wallMs` lowers this step's wall-time limit below `stepWallMs`. */
  async run(code: string, wallMs?: number): Promise<StepResult> {
    if (this.ended) return this.result({ error: this.ended });
    if (this.steps >= this.limits.maxSteps) {
      return this.end({ code: 'step_limit', message: describeBreach('step_limit', this.limits.maxSteps) });
    }
    const remainingCpu = this.limits.episodeCpuMs - this.cpuUsedMs;
    if (remainingCpu <= 0) {
      return this.end({
        code: 'episode_cpu_limit',
        message: describeBreach('episode_cpu_limit', this.limits.episodeCpuMs),
      });
    }
    this.steps++;
    const rewritten = rewriteTopLevel(code);
    if (!rewritten.ok) {
      return this.result({
        error: { code: 'syntax', message: `SyntaxError: ${rewritten.message}` },
        variables: this.variables,
        values: this.values,
      });
    }

    const isolate = this.warm.isolate;
    const byEpisode = remainingCpu < this.limits.stepCpuMs;
    let lose!: () => void;
    const lost = new Promise<never>((_, reject) => (lose = () => reject(new Error('the isolate was lost'))));
    // Observed here as well, so that a loss between the two calls below is never an unhandled rejection.
    lost.catch(() => undefined);
    const step: ActiveStep = {
      cpuStart: isolate.cpuTime,
      cpuLimitMs: byEpisode ? remainingCpu : this.limits.stepCpuMs,
      cpuBreach: byEpisode ? 'episode_cpu_limit' : 'cpu_limit',
      wallLimitMs: Math.min(this.limits.stepWallMs, wallMs ?? Infinity),
      wallStart: performance.now(),
      llmWaitMs: 0,
      llmSince: null,
      breach: null,
      cpuMs: 0,
      calls: [],
      lose,
    };
    this.current = step;
    watchdog.add(this, step);
    try {
      const { maxOutputChars, maxAnswerChars, maxLlmPromptChars, maxLlmChunkChars } = this.limits;
      const [kind, message] = await Promise.race([
        this.warm.step.apply(
          undefined,
          [rewritten.code, maxOutputChars, maxAnswerChars, maxLlmPromptChars, maxLlmChunkChars],
          { result: { copy: true } },
        ),
        lost,
      ]);
      const [stdout, cut, vars, answer, values] = await Promise.race([
        this.warm.drain.apply(undefined, [], { result: { copy: true } }),
        lost,
      ]);
      const cpuMs = this.cpuSince(step);
      this.cpuUsedMs += cpuMs;
      if (step.breach) return this.breach(step);
      if (
        typeof kind !== 'number' ||
        typeof message !== 'string' ||
        typeof stdout !== 'string' ||
        typeof cut !== 'number' ||
        typeof vars !== 'string' ||
        (answer !== null && typeof answer !== 'string') ||
        !isStringArray(values)
      ) {
        return this.result({
          error: { code: 'runtime', message: 'REPL internals returned a malformed result' },
          step,
          cpuMs,
        });
      }
      let error: StepError | null = kind === 0 ? null : { code: kind === 2 ? 'llm_limit' : 'runtime', message };
      // The prelude already refuses a long answer; this holds even if the guest got around it.
      const answerFits = answer === null || answer.length <= maxAnswerChars;
      if (!answerFits && error === null) {
        error = {
          code: 'runtime',
          message: `RangeError: ${describeOversize('answer() value', answer.length, 'maxAnswerChars', maxAnswerChars)}`,
        };
      }
      this.variables = vars === '' ? [] : vars.split('\n');
      this.values = values.length === this.variables.length ? values : [];
      return this.result({
        stdout: cut > 0 ? `${stdout}…[truncated ${cut} chars]` : stdout,
        truncatedChars: cut,
        error,
        variables: this.variables,
        values: this.values,
        step,
        cpuMs,
        answer: answerFits ? answer : null,
      });
    } catch (error) {
      if (this.warm.lost) return { ...this.end(this.outOfMemory(), step), brokeWorker: true };
      if (step.breach) return this.breach(step);
      if (isolate.isDisposed) {
        const reason = error instanceof Error ? error.message : String(error);
        if (this.ended) return this.result({ error: this.ended, step });
        if (/memory limit/i.test(reason)) return this.end(this.outOfMemory(), step);
        return this.end({ code: 'runtime', message: `the REPL stopped: ${reason}` }, step);
      }
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return this.result({ error: { code: 'runtime', message }, step });
    } finally {
      watchdog.remove(this);
      this.current = null;
    }
  }

  /**
   * Entry of the guest's `llm()` (via the bridge Reference); returns a tagged string (see guest-prelude). The
   * arguments come from the guest, so nothing about them is assumed: a prompt or chunk over its cap arrives as
   * null with only its claimed length, and sizes are checked again on the strings that did arrive.
   */
  async llmFromGuest(
    promptIn: unknown,
    chunkIn: unknown,
    claimedPromptChars: unknown,
    claimedChunkChars: unknown,
  ): Promise<string> {
    const step = this.current;
    const depth = this.depth + 1;
    const promptChars = typeof promptIn === 'string' ? promptIn.length : charCount(claimedPromptChars);
    const chunkChars = typeof chunkIn === 'string' ? chunkIn.length : charCount(claimedChunkChars);
    const refuse = (reason: string): string => {
      if (step && step.calls.length < MAX_CALL_RECORDS_PER_STEP) {
        step.calls.push(record(depth, promptChars, chunkChars, 0, 0, 0, reason));
      }
      return `l${reason}`;
    };
    if (!step || this.ended) return 'eepisode has ended';
    if (promptChars > this.limits.maxLlmPromptChars) {
      return refuse(describeOversize('llm() prompt', promptChars, 'maxLlmPromptChars', this.limits.maxLlmPromptChars));
    }
    if (chunkChars > this.limits.maxLlmChunkChars) {
      return refuse(describeOversize('llm() chunk', chunkChars, 'maxLlmChunkChars', this.limits.maxLlmChunkChars));
    }
    if (typeof promptIn !== 'string' || (chunkIn !== undefined && typeof chunkIn !== 'string')) {
      return 'ellm() received a malformed call';
    }
    const prompt = promptIn;
    const chunk = chunkIn;
    const tooDeep = depthRefusal(depth, this.limits.maxDepth);
    if (tooDeep !== null) return refuse(tooDeep);
    if (this.llmCalls >= this.limits.maxLlmCalls)
      return refuse(`llm() call limit reached (${this.limits.maxLlmCalls} per episode)`);
    const tokenBudget = this.limits.maxSubcallTokens - this.subcallTokens;
    if (tokenBudget <= 0)
      return refuse(`llm() token budget exhausted (${this.limits.maxSubcallTokens} tokens per episode)`);
    this.llmCalls++;
    const started = performance.now();
    step.llmSince = started;
    try {
      const response = await this.forward({ prompt, chunk, depth, episodeId: this.id, tokenBudget });
      this.subcallTokens += response.promptTokens + response.completionTokens;
      const wallMs = performance.now() - started;
      if (step.calls.length < MAX_CALL_RECORDS_PER_STEP) {
        step.calls.push(
          record(depth, promptChars, chunkChars, response.promptTokens, response.completionTokens, wallMs),
        );
      }
      return `o${response.text}`;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (step.calls.length < MAX_CALL_RECORDS_PER_STEP) {
        step.calls.push(record(depth, promptChars, chunkChars, 0, 0, performance.now() - started, message));
      }
      return `e${message}`;
    } finally {
      step.llmWaitMs += performance.now() - started;
      step.llmSince = null;
    }
  }

  private breach(step: ActiveStep): StepResult {
    const code = step.breach as Breach;
    const limit =
      code === 'timeout' ? step.wallLimitMs : code === 'cpu_limit' ? this.limits.stepCpuMs : this.limits.episodeCpuMs;
    return this.end({ code, message: describeBreach(code, limit) }, step);
  }

  private outOfMemory(): StepError {
    return { code: 'memory_limit', message: describeBreach('memory_limit', this.limits.memoryMb) };
  }

  private end(error: StepError, step?: ActiveStep): StepResult {
    this.ended = error;
    this.warm.owner = null;
    this.disposeIsolate();
    return this.result({ error, step });
  }

  private result(parts: {
    stdout?: string;
    truncatedChars?: number;
    error: StepError | null;
    variables?: string[];
    values?: string[];
    step?: ActiveStep;
    cpuMs?: number;
    answer?: string | null;
  }): StepResult {
    const step = parts.step;
    return {
      stdout: parts.stdout ?? '',
      truncatedChars: parts.truncatedChars ?? 0,
      error: parts.error,
      variables: parts.variables ?? [],
      values: parts.values ?? [],
      cpuMs: parts.cpuMs ?? (step ? this.cpuSince(step) : 0),
      wallMs: step ? performance.now() - step.wallStart : 0,
      llmCalls: step?.calls ?? [],
      alive: this.ended === null,
      answer: parts.answer ?? null,
    };
  }
}

/** A length the guest claims for a string it did not send; anything but a count reads as 0 (a malformed call). */
function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function charCount(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

function record(
  depth: number,
  promptChars: number,
  chunkChars: number,
  promptTokens: number,
  completionTokens: number,
  wallMs: number,
  error?: string,
): LlmCallRecord {
  const base = {
    depth,
    promptChars,
    chunkChars,
    promptTokens,
    completionTokens,
    wallMs,
  };
  return error === undefined ? base : { ...base, error };
}
