import type { EnvObservation, EnvResetRequest, EnvState, EnvStepReply, WsStepData } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import { scoreTrajectory } from '@fathom/rewards';
import { clientRewardTrajectory, episodeEnd } from '@fathom/rlm';
import {
  exhaustedResources,
  type LlmHandler,
  type OpenEpisodeOptions,
  type SandboxEpisode,
  type SandboxPoolStats,
  type StepResult,
} from '@fathom/sandbox';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { EnvServiceConfig } from '../config';
import { EnvError } from '../errors';
import { endpointRunner } from '../inference/endpoint.runner';
import type { InferencePort } from '../inference/inference.client';
import type { EnvMetrics, Transport } from '../metrics';
import { Episode, SessionSlot } from './episode';
import { SCRATCH_TASK, type EpisodeTask, type TaskStore } from './task.store';

/** The slice of SandboxPool the service uses (so a unit spec can hand in a test double). */
export interface ReplPool {
  openEpisode(options: OpenEpisodeOptions): Promise<SandboxEpisode>;
  stats(): SandboxPoolStats;
  close(): Promise<void>;
}

/** Everything the episode service depends on. */
export interface EpisodeServiceDeps {
  config: EnvServiceConfig;
  pool: ReplPool;
  tasks: TaskStore;
  inference: InferencePort;
  metrics: EnvMetrics;
  logger: Logger;
}

/**
 * Runs episodes for every transport (HTTP, WebSocket, MCP, gRPC): reset, step, state, close, the
 * maxConcurrentEnvs cap and idle reaping. Transports validate input and map EnvError codes; this class holds the
 * semantics, so all four behave the same.
 *
 * Ownership: an episode reset under a session slot (a WebSocket connection, a gRPC Session) belongs to that slot;
 * step, state and close name the caller's slot (`caller`), and any other caller gets EPISODE_FORBIDDEN. An episode
 * reset without a slot (HTTP, unary gRPC, MCP over HTTP) belongs to whoever holds its id, so its id is always the
 * server's: a random UUID (crypto, 122 bits); such a reset naming an id is refused, since a name a client picks
 * (e.g. "alice") can be guessed, closed and reset by another client, whose episode the first then steps into. A
 * reset naming an id that is open or being opened is EPISODE_EXISTS, so an id is never closed and reused behind its
 * holder's back, and of concurrent resets of one id exactly one wins.
 */
export class EpisodeService {
  private readonly episodes = new Map<string, Episode>();
  /**
   * Resets in flight, by episode id, with the session slot they open under: they hold capacity before their sandbox
   * exists, so concurrent resets cannot overshoot the cap.
   */
  private readonly opening = new Map<string, SessionSlot | null>();
  /** Slots held by connected sessions (WebSocket connections), from connect to disconnect. */
  private readonly slots = new Set<SessionSlot>();
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly deps: EpisodeServiceDeps) {
    const idleMs = deps.config.IDLE_TIMEOUT_S * 1000;
    this.reaper = setInterval(() => void this.reapIdle(idleMs), Math.min(Math.max(idleMs / 4, 250), 30_000));
    this.reaper.unref();
  }

  /**
   * Capacity in use: connected sessions (each holds one slot, with or without an episode), plus open episodes outside
   * a held slot, done or not (a done episode keeps its state until it is closed or reaped idle), plus resets in
   * flight outside a held slot.
   */
  get liveCount(): number {
    const unslotted = (slot: SessionSlot | null) => slot === null || !this.slots.has(slot);
    let live = this.slots.size;
    for (const slot of this.opening.values()) if (unslotted(slot)) live++;
    for (const episode of this.episodes.values()) if (unslotted(episode.slot)) live++;
    return live;
  }

  /** Takes a capacity slot for a new session (OpenEnv checks capacity at connect); CAPACITY_REACHED when none is left. */
  acquireSlot(): SessionSlot {
    this.ensureCapacity();
    const slot = new SessionSlot();
    this.slots.add(slot);
    this.syncActive();
    return slot;
  }

  /** Gives a session's slot back (on disconnect, after its episode is closed). */
  releaseSlot(slot: SessionSlot): void {
    this.slots.delete(slot);
    this.syncActive();
  }

  /**
   * Starts an episode and returns its first observation. Without `episode_id` the server issues a random one; a
   * named id that is open or being opened is EPISODE_EXISTS (close it first). Under a session `slot` the episode
   * uses that slot's capacity and belongs to it; otherwise it needs a free slot, belongs to whoever holds its id, and
   * may not name one (VALIDATION_ERROR): the id it gets is its only credential.
   * `llmClient` answers llm() for the session's client: a request with `serve_llm` has its llm() calls answered by
   * it instead of the configured endpoint, and is a VALIDATION_ERROR where there is none.
   */
  reset(
    request: EnvResetRequest,
    transport: Transport,
    slot: SessionSlot | null = null,
    llmClient: LlmHandler | null = null,
  ): Promise<{ episode: Episode; reply: EnvStepReply }> {
    if (request.serve_llm === true && llmClient === null) {
      throw new EnvError(
        'VALIDATION_ERROR',
        'serve_llm needs a session whose client answers llm_request messages: WebSocket /ws or gRPC Env.Session',
      );
    }
    if (request.episode_id !== undefined && slot === null) {
      throw new EnvError(
        'VALIDATION_ERROR',
        `episode_id "${request.episode_id}" refused: over ${transport} the server assigns episode ids (reset without ` +
          'one and send back the id the reply names), so that no other client can guess, close or reset your ' +
          'episode; a WebSocket /ws or gRPC Session connection may name its own, held by that connection',
        [{ loc: ['episode_id'], msg: 'assigned by the server outside a session', type: 'server_assigned' }],
      );
    }
    const task = this.deps.tasks.select(request);
    const llm =
      request.serve_llm === true && llmClient !== null
        ? this.counted(llmClient, 'client')
        : this.counted(this.serveLlm, 'service');
    return this.open(task, request.episode_id ?? randomUUID(), transport, slot, llm);
  }

  /**
   * Runs one action in a fresh scratch episode (no document, unscored) and closes it: OpenEnv's stateless HTTP
   * /step and MCP tools/call without a session, which upstream run on a temporary environment.
   */
  async stepScratch(data: WsStepData, transport: Transport): Promise<EnvStepReply> {
    const { episode } = await this.open(
      SCRATCH_TASK,
      randomUUID(),
      transport,
      null,
      this.counted(this.serveLlm, 'service'),
    );
    try {
      return await this.step(episode.id, data, transport);
    } finally {
      await this.close(episode.id).catch(() => undefined);
    }
  }

  private async open(
    task: EpisodeTask,
    id: string,
    transport: Transport,
    slot: SessionSlot | null,
    llm: LlmHandler,
  ): Promise<{ episode: Episode; reply: EnvStepReply }> {
    const started = performance.now();
    // Checked and claimed (opening.set) in one synchronous run, so of concurrent resets of one id exactly one passes.
    if (this.opening.has(id) || this.episodes.has(id)) {
      throw new EnvError(
        'EPISODE_EXISTS',
        `episode_id "${id}" is already open (or being reset by another request); close it first or reset without an episode_id`,
      );
    }
    if (slot === null || !this.slots.has(slot)) this.ensureCapacity();
    this.opening.set(id, slot);
    let repl: SandboxEpisode;
    try {
      // A document with a name (its hash, or a dataset task's id) is sent to a sandbox worker once while it keeps it.
      const ctxKey = task.contextSha256 ?? (task.split === 'inline' ? undefined : task.id);
      repl = await this.deps.pool.openEpisode({
        ctx: task.context,
        ctxKey,
        question: task.question,
        id,
        llm,
        priority: slot?.lowPriority === true ? 'low' : 'normal',
      });
    } catch (error) {
      throw new EnvError('EXECUTION_ERROR', `could not open a sandbox for episode ${id}: ${errorMessage(error)}`);
    } finally {
      this.opening.delete(id);
    }
    const episode = new Episode(id, task, repl, this.deps.config.MAX_STEPS, slot);
    this.episodes.set(id, episode);
    this.syncActive();
    this.deps.metrics.resetSeconds.observe({ transport }, (performance.now() - started) / 1000);
    this.deps.logger.debug('episode reset', { episode_id: id, task_id: task.id, transport });
    return { episode, reply: this.reply(episode, null) };
  }

  /** Runs one action on an open episode; `caller` is the caller's session slot (null outside a connection). */
  async step(
    episodeId: string,
    data: WsStepData,
    transport: Transport,
    caller: SessionSlot | null = null,
  ): Promise<EnvStepReply> {
    const episode = this.get(episodeId, caller);
    return episode.exclusive(async () => {
      if (episode.done) {
        throw new EnvError('EPISODE_DONE', `episode ${episodeId} has ended (done); reset to start a new one`);
      }
      episode.touch();
      const completionTokens = data.completion_tokens ?? null;
      const started = performance.now();
      const kind = data.action.answer !== undefined ? 'answer' : 'code';
      const reply =
        data.action.answer !== undefined
          ? await this.answer(episode, data.action.answer, completionTokens)
          : await this.runCode(episode, data.action.code ?? '', completionTokens, data.timeout_s);
      this.deps.metrics.stepSeconds.observe({ transport, kind }, (performance.now() - started) / 1000);
      episode.touch();
      return reply;
    });
  }

  state(episodeId: string, caller: SessionSlot | null = null): EnvState {
    return this.get(episodeId, caller).state();
  }

  /** Ends an episode and frees its sandbox; unknown ids are EPISODE_NOT_FOUND, another session's EPISODE_FORBIDDEN. */
  async close(episodeId: string, caller: SessionSlot | null = null): Promise<void> {
    await this.end(this.get(episodeId, caller));
  }

  private async end(episode: Episode): Promise<void> {
    if (this.episodes.get(episode.id) !== episode) return;
    this.episodes.delete(episode.id);
    episode.done = true;
    this.syncActive();
    await this.closeRepl(episode);
  }

  /**
   * Forgets every episode and stops the reaper (service shutdown). Their sandboxes are not closed one by one: the
   * caller closes the whole pool next, which also ends episodes whose worker is stuck in a runaway step.
   */
  shutdown(): void {
    clearInterval(this.reaper);
    for (const episode of this.episodes.values()) episode.done = true;
    this.episodes.clear();
    this.syncActive();
  }

  /** Episodes that have not been touched for `idleMs` are closed. */
  async reapIdle(idleMs: number): Promise<void> {
    const now = Date.now();
    const stale = [...this.episodes.values()].filter((e) => now - e.lastActivityMs > idleMs);
    for (const episode of stale) {
      this.deps.logger.info('episode reaped after idle timeout', {
        episode_id: episode.id,
        idle_ms: now - episode.lastActivityMs,
      });
      await this.end(episode);
    }
  }

  private ensureCapacity(): void {
    const max = this.deps.config.MAX_CONCURRENT_ENVS;
    if (this.liveCount >= max) {
      throw new EnvError(
        'CAPACITY_REACHED',
        `server is at capacity: ${max} sessions are open (MAX_CONCURRENT_ENVS); close one or retry later`,
      );
    }
  }

  /** The open episode `episodeId`, if `caller` may act on it: an episode under a session slot is that slot's alone. */
  private get(episodeId: string, caller: SessionSlot | null): Episode {
    const episode = this.episodes.get(episodeId);
    if (!episode) {
      throw new EnvError(
        'EPISODE_NOT_FOUND',
        `episode "${episodeId}" not found (never reset, closed, or reaped after idling)`,
      );
    }
    if (episode.slot !== null && episode.slot !== caller) {
      throw new EnvError(
        'EPISODE_FORBIDDEN',
        `episode "${episodeId}" belongs to the WebSocket connection that opened it; only that connection may use it`,
      );
    }
    return episode;
  }

  private async answer(episode: Episode, answer: string, completionTokens: number | null): Promise<EnvStepReply> {
    episode.stepCount++;
    episode.actions.push({ kind: 'answer', answer, completionTokens });
    this.finish(episode, answer);
    await this.closeRepl(episode);
    return this.reply(episode, null);
  }

  private async runCode(
    episode: Episode,
    code: string,
    completionTokens: number | null,
    timeoutS: number | undefined,
  ): Promise<EnvStepReply> {
    episode.stepCount++;
    episode.actions.push({ kind: 'code', code, completionTokens });
    const result = await this.runWithDeadline(episode, code, timeoutS);
    episode.llmCalls.push(...result.llmCalls);
    episode.variables = result.variables;
    if (result.error?.code === 'timeout' || result.error?.code === 'cpu_limit') this.deps.metrics.sandboxTimeouts.inc();
    if (episode.slot !== null) this.noteBreach(episode, episode.slot, result);
    // The episode engine's rule (episodeEnd): code that called answer() ends the episode with that value, as an
    // answer action would; a dead REPL or the step limit ends it unanswered (result.answer is then null).
    if (episodeEnd(result, episode.stepCount, episode.maxSteps) !== null) {
      this.finish(episode, result.answer);
      void this.closeRepl(episode);
    }
    return this.reply(episode, result);
  }

  /**
   * Moves a session to the low-priority sandbox workers (for its next episode) after a code step that used up its CPU
   * time or its memory or broke its worker (`exhaustedResources`), and back after one that did not.
   */
  private noteBreach(episode: Episode, slot: SessionSlot, result: StepResult): void {
    const breached = exhaustedResources(result);
    if (breached && !slot.lowPriority) {
      this.deps.logger.info('session moves to low-priority sandbox workers', {
        episode_id: episode.id,
        code: result.error?.code,
      });
    }
    slot.lowPriority = breached;
  }

  /**
   * A request's timeout_s lowers the step's wall-time limit: the sandbox's watchdog stops the guest at the deadline
   * and disposes its isolate, so the step is answered as a timeout that ends the episode.
   */
  private runWithDeadline(episode: Episode, code: string, timeoutS: number | undefined): Promise<StepResult> {
    if (timeoutS === undefined || timeoutS * 1000 >= this.deps.config.STEP_TIMEOUT_MS) return episode.repl.run(code);
    return episode.repl.run(code, { wallMs: timeoutS * 1000 });
  }

  /**
   * Ends the episode with `answer` and scores it, when its task has a gold answer (an ad hoc or scratch episode is
   * not scored), with FATHOM's reward (`scoreTrajectory`, default config) of the trajectory its actions make
   * (`clientRewardTrajectory`).
   */
  private finish(episode: Episode, answer: string | null): void {
    episode.done = true;
    episode.answer = answer;
    const gold = episode.task.answer;
    if (gold !== null) {
      const trajectory = clientRewardTrajectory({ actions: episode.actions, answer, llmCalls: episode.llmCalls });
      const score = scoreTrajectory(trajectory, { ...episode.task, answer: gold });
      episode.reward = score.total;
      episode.correct = score.components.correctness === 1;
    }
    this.syncActive();
    this.deps.logger.info('episode done', {
      episode_id: episode.id,
      task_id: episode.task.id,
      steps: episode.stepCount,
      reward: episode.reward,
      correct: episode.correct,
      answered: answer !== null,
    });
  }

  private async closeRepl(episode: Episode): Promise<void> {
    await episode.repl.close().catch((error) => {
      this.deps.logger.warn('closing a sandbox episode failed', { episode_id: episode.id, err: error });
    });
  }

  private reply(episode: Episode, result: StepResult | null): EnvStepReply {
    const error = result?.error ? { code: result.error.code, message: result.error.message } : null;
    const variables = result?.variables ?? [];
    const observation: EnvObservation = {
      episode_id: episode.id,
      question: episode.task.question,
      stdout: result?.stdout ?? '',
      truncated_chars: result?.truncatedChars ?? 0,
      error,
      variables,
      context_chars: episode.task.context.length,
      context_tokens: episode.task.context_tokens,
      context_sha256: episode.task.contextSha256 ?? null,
      step: episode.stepCount,
      max_steps: episode.maxSteps,
      llm_calls: episode.executedLlmCalls,
      cpu_ms: result?.cpuMs ?? 0,
      wall_ms: result?.wallMs ?? 0,
      done: episode.done,
      reward: episode.reward,
      correct: episode.correct,
      answer: episode.answer,
      result: {
        stdout: result?.stdout ?? '',
        stderr: error === null ? '' : `${error.code}: ${error.message}`,
        locals_snapshot: localsSnapshot(result),
        execution_time: (result?.wallMs ?? 0) / 1000,
        success: error === null,
        exception: error?.message ?? null,
      },
      context_length: episode.task.context.length,
      available_variables: variables,
      iteration: episode.stepCount,
      max_iterations: episode.maxSteps,
    };
    return { observation, reward: episode.reward, done: episode.done };
  }

  private syncActive(): void {
    this.deps.metrics.activeSessions.set(this.liveCount);
  }

  /**
   * The service's own answer to a guest llm() call, by the one episode engine (`endpointRunner`) with the meaning
   * llm() has everywhere (`planSubcall` of `@fathom/rlm`): a chunk within the reader window is a leaf read by the
   * Inference endpoint — a span read when its checkpoint has a span reader, else generated — a larger one a child
   * episode over the chunk whose turns the endpoint writes.
   */
  private readonly serveLlm: LlmHandler = async (request) => {
    const { config } = this.deps;
    const runner = await endpointRunner(this.deps, request.episodeId, request.depth, {
      sampling: { temperature: config.LLM_TEMPERATURE },
      maxTokensPerTurn: config.LLM_MAX_TOKENS,
    });
    return (await runner.serveCall(request.episodeId, request)).response;
  };

  /** `llm` with its outcome counted under who answers it; a failure becomes an error inside the guest. */
  private counted(llm: LlmHandler, answeredBy: 'service' | 'client'): LlmHandler {
    return async (request) => {
      try {
        const response = await llm(request);
        this.deps.metrics.llmCalls.inc({ outcome: 'ok', answered_by: answeredBy });
        return response;
      } catch (error) {
        this.deps.metrics.llmCalls.inc({ outcome: 'error', answered_by: answeredBy });
        throw new Error(`llm() failed: ${errorMessage(error)}`, { cause: error });
      }
    };
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** REPLEnv's `locals_snapshot`: each variable of the step by name, with the short form of its value the sandbox gave. */
function localsSnapshot(result: StepResult | null): Record<string, string> {
  const values = result?.values ?? [];
  return Object.fromEntries(
    result?.variables.flatMap((name, i) => (i < values.length ? [[name, values[i]]] : [])) ?? [],
  );
}
