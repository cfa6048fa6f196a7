import * as grpc from '@grpc/grpc-js';
import {
  DEFAULT_LIMITS,
  resolveLimits,
  type LlmCallRecord,
  type LlmHandler,
  type OpenEpisodeOptions,
  type SandboxEpisode,
  type SandboxLimits,
  type SandboxPool,
  type StepError,
  type StepOptions,
  type StepResult,
} from '@fathom/sandbox';
import { performance } from 'node:perf_hooks';
import type { LlmCall__Output } from '../generated/fathom/env/v1/LlmCall';
import type { Observation__Output } from '../generated/fathom/env/v1/Observation';
import type { SessionReply__Output } from '../generated/fathom/env/v1/SessionReply';
import type { SessionRequest } from '../generated/fathom/env/v1/SessionRequest';
import { RpcError, toRpcError } from '../errors';
import { loadService } from '../protos';

type SessionStream = grpc.ClientDuplexStream<SessionRequest, SessionReply__Output>;

function envClient(address: string) {
  const Env = loadService('env.proto', 'fathom.env.v1.Env');
  return new Env(address, grpc.credentials.createInsecure());
}

/**
 * The env-service as the sandbox of an episode engine. Each episode opened here is an episode of the env-service on a
 * gRPC `Env.Session` stream of its own, reset with the episode's document and question and `serve_llm`; each cell is
 * a step of it; and each guest `llm()` call comes back over the stream to the episode's own `LlmHandler`. So
 * `EpisodeRunner` drives episodes in the env-service with nothing else changed: its policy writes the turns, its
 * leaf reads and child episodes (opened here too) write the sub-calls, and their tokens land in its trajectories.
 *
 * The env-service's own limits (step time, memory, llm() calls per episode) apply to each episode; this side
 * applies the recursion depth of `limits.maxDepth`, which the service cannot see (a child episode is a root there).
 */
export class EnvServiceSandbox implements Pick<SandboxPool, 'openEpisode'> {
  private readonly client: ReturnType<typeof envClient>;

  constructor(readonly address: string) {
    this.client = envClient(address);
  }

  /** Opens a session and resets its episode; rejects with an RpcError when the service refuses or is unreachable. */
  async openEpisode(options: OpenEpisodeOptions): Promise<SandboxEpisode> {
    const stream = this.client.Session() as SessionStream;
    const session = new SessionReader(stream);
    try {
      const reply = await session.request({
        reset: {
          context: options.ctx,
          ...(options.question ? { question: options.question } : {}),
          serve_llm: true,
          ...(options.id === undefined ? {} : { episode_id: options.id }),
        },
      });
      const observation = reply.observation?.observation;
      if (observation?.episode_id === undefined) throw new Error('the reset was not answered with an observation');
      return new EnvServiceEpisode(session, observation.episode_id, options);
    } catch (error) {
      stream.cancel();
      throw toRpcError(error, `Env.Session reset at ${this.address}`);
    }
  }

  /** Closes the channel; episodes still open end with their streams. */
  close(): void {
    grpc.Client.prototype.close.call(this.client);
  }
}

/**
 * The replies of one Session stream: `llm_request`s go to the episode's handler as they arrive (the step they serve
 * is still waiting), every other reply to the request that waits for it, in order.
 */
class SessionReader {
  private readonly waiters: { resolve: (reply: SessionReply__Output) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  onLlmCall: (call: LlmCall__Output) => void = () => undefined;

  constructor(readonly stream: SessionStream) {
    stream.on('data', (reply: SessionReply__Output) => {
      if (reply.llm_request) this.onLlmCall(reply.llm_request);
      else this.waiters.shift()?.resolve(reply);
    });
    stream.on('error', (error: Error) => this.fail(error));
    stream.on('end', () => this.fail(new RpcError(grpc.status.UNAVAILABLE, 'Env.Session', 'the stream ended')));
  }

  /** Writes a request and resolves with its reply; a SessionError reply rejects with its status and message. */
  async request(message: SessionRequest): Promise<SessionReply__Output> {
    if (this.failure !== null) throw this.failure;
    const reply = await new Promise<SessionReply__Output>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.stream.write(message);
    });
    if (reply.error) {
      const { status, reason, message } = reply.error;
      throw new RpcError(status ?? grpc.status.UNKNOWN, reason ?? 'SessionError', message ?? '');
    }
    return reply;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

/** One env-service episode as a SandboxEpisode; see EnvServiceSandbox. */
class EnvServiceEpisode implements SandboxEpisode {
  readonly depth: number;
  readonly limits: Readonly<SandboxLimits>;
  alive = true;
  steps = 0;
  /** The llm() calls of the step in flight. */
  private calls: LlmCallRecord[] = [];
  private readonly llm: LlmHandler | undefined;

  constructor(
    private readonly session: SessionReader,
    readonly id: string,
    options: OpenEpisodeOptions,
  ) {
    this.depth = options.depth ?? 0;
    this.limits = resolveLimits(DEFAULT_LIMITS, options.limits);
    this.llm = options.llm;
    session.onLlmCall = (call) => void this.answer(call);
  }

  async run(code: string, options: StepOptions = {}): Promise<StepResult> {
    if (!this.alive) return ended('closed', 'the episode has ended');
    this.calls = [];
    const timeout = options.wallMs === undefined ? {} : { timeout_s: options.wallMs / 1000 };
    let reply: SessionReply__Output;
    try {
      reply = await this.session.request({ step: { code, ...timeout } });
    } catch (error) {
      this.alive = false;
      return ended('worker_crashed', `the env-service step failed: ${toRpcError(error, 'Env.Session step').message}`);
    }
    this.steps++;
    // Unset fields are proto3 zero values (the loader runs with defaults: false).
    const observation: Observation__Output = reply.observation?.observation ?? {};
    this.alive = observation.done !== true;
    const answer = observation.answer ?? null;
    const error = (observation.error as StepError | undefined) ?? null;
    return {
      stdout: observation.stdout ?? '',
      truncatedChars: observation.truncated_chars ?? 0,
      error:
        error === null && !this.alive && answer === null
          ? { code: 'step_limit', message: `the env-service ended the episode after ${observation.step ?? 0} steps` }
          : error,
      variables: observation.variables ?? [],
      cpuMs: observation.cpu_ms ?? 0,
      wallMs: observation.wall_ms ?? 0,
      llmCalls: this.calls,
      alive: this.alive,
      answer,
    };
  }

  /** Ends the episode and its stream. Idempotent. */
  async close(): Promise<void> {
    this.alive = false;
    if (this.session.stream.writable) this.session.stream.end({ close: {} });
  }

  /** Answers one llm() call of the step in flight with the episode's handler, at this episode's depth. */
  private async answer(call: LlmCall__Output): Promise<void> {
    const depth = this.depth + (call.depth ?? 0);
    const prompt = call.prompt ?? '';
    const requestId = call.request_id ?? '';
    const started = performance.now();
    const record: LlmCallRecord = {
      depth,
      promptChars: prompt.length,
      chunkChars: call.chunk?.length ?? 0,
      promptTokens: 0,
      completionTokens: 0,
      wallMs: 0,
    };
    let result: SessionRequest['llm_reply'];
    try {
      if (this.llm === undefined) throw new Error('llm() is not available');
      if (depth > this.limits.maxDepth)
        throw new Error(`llm() recursion depth limit reached (max depth ${this.limits.maxDepth})`);
      const response = await this.llm({
        prompt,
        ...(call.chunk === undefined ? {} : { chunk: call.chunk }),
        depth,
        episodeId: this.id,
        tokenBudget: call.token_budget ?? 0,
      });
      record.promptTokens = response.promptTokens;
      record.completionTokens = response.completionTokens;
      result = {
        request_id: requestId,
        reply: {
          text: response.text,
          prompt_tokens: response.promptTokens,
          completion_tokens: response.completionTokens,
        },
      };
    } catch (error) {
      record.error = error instanceof Error ? error.message : String(error);
      result = { request_id: requestId, error: record.error };
    }
    record.wallMs = performance.now() - started;
    this.calls.push(record);
    if (this.session.stream.writable) this.session.stream.write({ llm_reply: result });
  }
}

function ended(code: StepError['code'], message: string): StepResult {
  return {
    stdout: '',
    truncatedChars: 0,
    error: { code, message },
    variables: [],
    cpuMs: 0,
    wallMs: 0,
    llmCalls: [],
    alive: false,
    answer: null,
  };
}
