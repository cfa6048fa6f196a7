import type {
  EnvResetRequest,
  EnvState,
  EnvStepReply,
  SessionLlmReply,
  SessionLlmRequest,
  WsStepData,
} from '@fathom/contracts';
import { EnvError } from '../errors';
import { MAX_QUEUED_REQUESTS, type SessionSlot } from '../episode/episode';
import type { EpisodeService } from '../episode/episode.service';
import type { Transport } from '../metrics';
import { SessionLlm } from './session-llm';

/** How a session's client is sent llm() calls, when it can answer them (WebSocket /ws, gRPC Env.Session). */
export interface SessionLlmChannel {
  send(request: SessionLlmRequest): void;
  /** How long a call waits for the client's llm_reply (INFERENCE_TIMEOUT_MS). */
  timeoutMs: number;
}

/** How a session stops and restarts reading its transport's messages (backpressure). */
export interface SessionFlow {
  pause(): void;
  resume(): void;
}

/**
 * One session of a session transport — a WebSocket connection (/ws, /mcp) or a gRPC Env.Session stream — whatever
 * carries it: the capacity slot it holds from open to end, its one episode, its requests answered one after another,
 * and, for an episode reset with `serve_llm`, the llm() calls its client owes answers to. The transports only decode
 * messages and encode replies.
 */
export class EnvSession {
  episodeId: string | null = null;
  /** Requests received and not yet answered. */
  pending = 0;
  /** Whether the transport is paused (see `open`). */
  private paused = false;
  lastActivityMs = Date.now();
  /** Answers llm() of episodes reset with serve_llm; null where the client cannot answer (WebSocket /mcp). */
  private readonly llm: SessionLlm | null;
  private tail: Promise<void> = Promise.resolve();
  private ending: Promise<void> | null = null;

  private constructor(
    private readonly episodes: EpisodeService,
    readonly slot: SessionSlot,
    readonly transport: Transport,
    llm: SessionLlmChannel | null,
    private readonly flow: SessionFlow,
  ) {
    this.llm =
      llm === null
        ? null
        : new SessionLlm(
            (r) => llm.send(r),
            llm.timeoutMs,
            () => this.updateFlow(),
          );
  }

  /**
   * Opens a session on a capacity slot of its own; CAPACITY_REACHED when none is free. `flow` pauses the transport's
   * reading while MAX_QUEUED_REQUESTS requests are unanswered: a client that sends more without waiting is then read
   * only as fast as they are answered, and what it sends waits in its own socket buffers. Except while an llm() call
   * waits for the client's llm_reply, which may be among what it sent: the session then reads on, and refuses in turn
   * (CAPACITY_REACHED) what it reads past MAX_QUEUED_REQUESTS, up to as many again.
   */
  static open(
    episodes: EpisodeService,
    transport: Transport,
    llm: SessionLlmChannel | null,
    flow: SessionFlow,
  ): EnvSession {
    return new EnvSession(episodes, episodes.acquireSlot(), transport, llm, flow);
  }

  get ended(): boolean {
    return this.ending !== null;
  }

  /**
   * Runs `handle` after the session's earlier requests; `handle` answers its request itself (errors included). A
   * request read past MAX_QUEUED_REQUESTS unanswered while an llm() call waits (see `open`) is answered in its turn
   * by `refuse` instead; one without `refuse` (the end of the client's stream) is always handled.
   */
  enqueue(handle: () => Promise<void>, refuse?: (error: EnvError) => Promise<void>): void {
    const run =
      refuse !== undefined && this.pending >= MAX_QUEUED_REQUESTS && this.awaitingLlmReply
        ? () =>
            refuse(
              new EnvError(
                'CAPACITY_REACHED',
                `this session has ${MAX_QUEUED_REQUESTS} requests unanswered while an llm() call waits for its ` +
                  'llm_reply; send the llm_reply, and wait for answers before sending more',
              ),
            )
        : handle;
    this.pending++;
    this.updateFlow();
    this.lastActivityMs = Date.now();
    // A handler answers its own errors; the catch only keeps the queue going should one escape.
    this.tail = this.tail
      .then(run)
      .catch(() => undefined)
      .finally(() => {
        this.pending--;
        this.updateFlow();
        this.lastActivityMs = Date.now();
      });
  }

  /** Whether an llm() call of this session waits for its client's llm_reply. */
  private get awaitingLlmReply(): boolean {
    return (this.llm?.waitingCalls ?? 0) > 0;
  }

  /** Pauses or resumes the transport for the requests unanswered and the llm() calls waiting (see `open`). */
  private updateFlow(): void {
    const limit = this.awaitingLlmReply ? 2 * MAX_QUEUED_REQUESTS : MAX_QUEUED_REQUESTS;
    const pause = this.pending >= limit;
    if (pause === this.paused) return;
    this.paused = pause;
    if (pause) this.flow.pause();
    else this.flow.resume();
  }

  /** No request in flight and none received for more than `idleMs`. */
  idleFor(idleMs: number, now = Date.now()): boolean {
    return this.pending === 0 && now - this.lastActivityMs > idleMs;
  }

  /** Ends the session's episode, if any, and starts a new one under the session's slot. */
  async reset(request: EnvResetRequest): Promise<EnvStepReply> {
    await this.endEpisode();
    const { episode, reply } = await this.episodes.reset(request, this.transport, this.slot, this.llm?.call ?? null);
    this.episodeId = episode.id;
    return reply;
  }

  step(data: WsStepData): Promise<EnvStepReply> {
    return this.episodes.step(this.requireEpisode(), data, this.transport, this.slot);
  }

  state(): EnvState {
    return this.episodes.state(this.requireEpisode(), this.slot);
  }

  /**
   * The client's answer to an llm_request. It is handled at once, not queued: the step it serves is still running
   * and holds the session's queue.
   */
  answerLlm(reply: SessionLlmReply): void {
    if (this.llm === null) {
      throw new EnvError('VALIDATION_ERROR', 'this session cannot serve llm(): use WebSocket /ws or gRPC Env.Session');
    }
    this.llm.answer(reply);
  }

  /** The client can send no more (a half-closed stream): llm() calls waiting for it fail, and later ones at once. */
  stopServingLlm(): void {
    this.llm?.close();
  }

  requireEpisode(): string {
    if (this.episodeId === null) {
      throw new EnvError('NO_ACTIVE_EPISODE', 'no episode in this session: send a reset request first');
    }
    return this.episodeId;
  }

  async endEpisode(): Promise<void> {
    const id = this.episodeId;
    this.episodeId = null;
    if (id !== null) await this.episodes.close(id, this.slot).catch(() => undefined);
  }

  /**
   * Ends the session once: llm() calls its client has not answered fail (so a step waiting on one finishes), then,
   * after the requests in flight, its episode is closed and its slot freed.
   */
  end(): Promise<void> {
    if (this.ending === null) {
      this.stopServingLlm();
      this.ending = this.tail.then(() => this.endEpisode()).finally(() => this.episodes.releaseSlot(this.slot));
    }
    return this.ending;
  }
}
