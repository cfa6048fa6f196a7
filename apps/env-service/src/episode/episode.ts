import { STATE_CONTEXT_CHARS, type EnvState } from '@fathom/contracts';
import type { ClientAction } from '@fathom/rlm';
import type { LlmCallRecord, SandboxEpisode } from '@fathom/sandbox';
import { EnvError } from '../errors';
import type { EpisodeTask } from './task.store';

/**
 * Requests a client may leave unanswered: on a session (`EnvSession`), which then stops reading its transport, and
 * on an episode stepped without one (HTTP, unary gRPC, MCP), whose further steps are refused with CAPACITY_REACHED.
 * OpenEnv clients send one request at a time; what a client sends beyond this without waiting is not held in this
 * process's memory.
 */
export const MAX_QUEUED_REQUESTS = 32;

/**
 * A capacity slot held by a session transport from connect to disconnect (a WebSocket connection), as OpenEnv
 * counts sessions when they connect. The episodes reset through a slot use it instead of taking one of their own.
 */
export class SessionSlot {
  /**
   * Whether the session's last code step used up its CPU time or its memory, or broke its sandbox worker
   * (`exhaustedResources`): its next episode then opens on the sandbox's low-priority workers, so that a client that
   * keeps doing so cannot slow the others down or kill their episodes.
   */
  lowPriority = false;
}

/**
 * One open episode: its task, its REPL and its counters. Steps of one episode run one at a time in arrival order
 * (`exclusive`), whichever transport they come from.
 */
export class Episode {
  stepCount = 0;
  done = false;
  reward: number | null = null;
  correct: boolean | null = null;
  /** The answer the episode ended with, or null. */
  answer: string | null = null;
  /** The guest's variable names after the last code step (the sandbox's `variables`). */
  variables: string[] = [];
  /** Every llm() call, executed or refused, in order (the recursion tree, flattened). */
  readonly llmCalls: LlmCallRecord[] = [];
  /** Each step's action, in order, with its `completion_tokens` as the client reported it: what the reward scores. */
  readonly actions: ClientAction[] = [];
  readonly startedAt = new Date();
  lastActivityMs = Date.now();
  private tail: Promise<unknown> = Promise.resolve();
  /** Calls of `exclusive` running or waiting. */
  private queued = 0;

  constructor(
    readonly id: string,
    readonly task: EpisodeTask,
    readonly repl: SandboxEpisode,
    readonly maxSteps: number,
    /**
     * The session slot that holds this episode's capacity and owns it (only that slot may step, read or close it), or
     * null when the episode holds its own capacity and belongs to whoever holds its id.
     */
    readonly slot: SessionSlot | null = null,
  ) {}

  /**
   * Runs `fn` after every earlier call on this episode has settled; refused with CAPACITY_REACHED, without waiting,
   * while MAX_QUEUED_REQUESTS calls are running or waiting.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.queued >= MAX_QUEUED_REQUESTS) {
      return Promise.reject(
        new EnvError(
          'CAPACITY_REACHED',
          `episode ${this.id} has ${MAX_QUEUED_REQUESTS} steps running or waiting; wait for their answers before ` +
            'sending more',
        ),
      );
    }
    this.queued += 1;
    const settled = () => {
      this.queued -= 1;
    };
    const run = this.tail.then(fn, fn);
    this.tail = run.then(settled, settled);
    return run;
  }

  /** llm() calls that returned text (refused calls are recorded but not counted). */
  get executedLlmCalls(): number {
    return this.llmCalls.filter((call) => call.error === undefined).length;
  }

  touch(): void {
    this.lastActivityMs = Date.now();
  }

  state(): EnvState {
    return {
      episode_id: this.id,
      step_count: this.stepCount,
      task_id: this.task.id,
      split: this.task.split,
      done: this.done,
      reward: this.reward,
      max_steps: this.maxSteps,
      context_tokens: this.task.context_tokens,
      llm_calls: this.executedLlmCalls,
      started_at: this.startedAt.toISOString(),
      namespace_keys: this.variables,
      iteration: this.stepCount,
      max_iterations: this.maxSteps,
      context: this.task.context.slice(0, STATE_CONTEXT_CHARS),
      task_prompt: this.task.question,
      final_answer: this.answer,
    };
  }
}
