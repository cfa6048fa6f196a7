import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { DocCache, documentSha256 } from './doc-cache';
import { depthRefusal, STEP_ERROR_CODES, type StepError, type StepErrorCode } from './errors';
import { DEFAULT_LIMITS, resolveLimits, type SandboxLimits } from './limits';
import { endedResult } from './protocol';
import type { SandboxPool } from './pool';
import type { LlmCallRecord, LlmHandler, OpenEpisodeOptions, SandboxEpisode, StepResult } from './types';

/** Documents an OpenEnvSandbox remembers the server keeps. */
const MAX_KEPT = 1024;

/** A JSON message as it comes off the socket: checked field by field where it is read. */
type Message = Record<string, unknown>;

/**
 * An OpenEnv environment, reached by the URL of its WebSocket session endpoint (`ws://host:port/ws`), as the sandbox
 * of an episode engine: each episode opened here is a session of its own, reset with the episode's document and
 * question (`context` and `task_prompt`, as OpenEnv's REPLEnv takes them), each cell a step (`{code}`), and the
 * observation read back as a step result — FATHOM's fields where the server sends them (`stdout`, `error`,
 * `variables`, `answer`…), REPLEnv's `result` otherwise, and the reward the server gives with it. So `EpisodeRunner`
 * trains on any OpenEnv server whose action space is REPLEnv's, on FATHOM's tasks, scored by FATHOM's reward or by
 * the server's own (`reward.source` `env`: a text answer is then sent as REPLEnv's final action, `submit`).
 *
 * The reset also names the document by its SHA-256 and asks for `serve_llm` (servers that do not know them ignore
 * them, as OpenEnv's reset allows extras): FATHOM's env-service keeps the document, so the group's other episodes
 * send only its hash, and it sends each guest `llm()` call back as an `llm_request`, which is answered here by the
 * episode's own `LlmHandler` — the engine's leaf reads and child episodes (opened here too), written by the policy
 * it trains. The server's limits (step time, memory, llm() calls) apply; this side applies the recursion depth of
 * `limits.maxDepth`, which the server cannot see (a child episode is a root there).
 */
export class OpenEnvSandbox implements Pick<SandboxPool, 'openEpisode' | 'close'> {
  /** Sessions of the episodes open now. */
  private readonly sessions = new Set<OpenEnvSession>();
  /** Hashes of documents the server said it keeps (it echoed `context_sha256`), the most recent `MAX_KEPT`. */
  private readonly kept = new DocCache(MAX_KEPT);
  /** Resets sending a document not yet kept, by its hash: settled once the server answered (and kept it or not). */
  private readonly storing = new Map<string, Promise<void>>();

  constructor(
    readonly url: string,
    /** `token`: sent as `Authorization: Bearer <token>` on connect (FATHOM's env-service with OPENENV_TOKEN). */
    private readonly options: { connectTimeoutMs?: number; token?: string } = {},
  ) {}

  /**
   * Opens a session and resets its episode; rejects naming the URL when the server refuses or is unreachable. The
   * document goes with its SHA-256 (`context_sha256`); once the server has echoed that hash, later episodes over the
   * same document send the hash alone, and send the document again if the server no longer keeps it.
   */
  async openEpisode(options: OpenEpisodeOptions): Promise<SandboxEpisode> {
    const sha256 = documentSha256(options.ctx);
    const session = await OpenEnvSession.connect(this.url, this.options.connectTimeoutMs ?? 10_000, this.options.token);
    this.sessions.add(session);
    session.onClose = () => this.sessions.delete(session);
    const reset = (withDocument: boolean) =>
      session.request({
        type: 'reset',
        data: {
          ...(withDocument ? { context: options.ctx } : {}),
          context_sha256: sha256,
          ...(options.question ? { task_prompt: options.question } : {}),
          ...(options.id === undefined ? {} : { episode_id: options.id }),
          serve_llm: true,
        },
      });
    try {
      // Episodes over a document whose first reset is still on its way wait for it, then send only the hash.
      await this.storing.get(sha256);
      let reply: Message;
      if (this.kept.has(sha256)) {
        reply = await reset(false).catch((error: unknown) => {
          if (!errorMessage(error).startsWith('TASK_NOT_FOUND')) throw error;
          this.kept.delete(sha256);
          return reset(true);
        });
      } else {
        const sent = reset(true);
        const stored = sent
          .then((answer) => {
            if (observationOf(answer).context_sha256 === sha256) this.kept.set(sha256, '');
          })
          .catch(() => undefined);
        this.storing.set(sha256, stored);
        try {
          reply = await sent;
          await stored;
        } finally {
          if (this.storing.get(sha256) === stored) this.storing.delete(sha256);
        }
      }
      const observation = observationOf(reply);
      const id = typeof observation.episode_id === 'string' ? observation.episode_id : randomUUID();
      return new OpenEnvEpisode(session, id, options);
    } catch (error) {
      session.close();
      throw new Error(`OpenEnv reset at ${this.url} failed: ${errorMessage(error)}`, { cause: error });
    }
  }

  /** Opens a session and closes it again: rejects naming the URL when the server is unreachable or refuses it. */
  async check(): Promise<void> {
    const session = await OpenEnvSession.connect(this.url, this.options.connectTimeoutMs ?? 10_000);
    session.close();
  }

  /** Ends the sessions of the episodes still open (their episodes end with them). */
  async close(): Promise<void> {
    for (const session of this.sessions) session.close();
  }
}

/**
 * One WebSocket session: `llm_request` messages go to the episode's handler as they arrive (the step they serve
 * is still waiting), every other message answers the oldest request waiting for one; an `error` message rejects it.
 */
class OpenEnvSession {
  private readonly waiters: { resolve: (message: Message) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;
  onLlmCall: (call: Message) => void = () => undefined;
  onClose: () => void = () => undefined;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data) => {
      let message: Message;
      try {
        message = JSON.parse(String(data)) as Message;
      } catch {
        this.fail(new Error('the server sent a message that is not JSON'));
        return;
      }
      if (message.type === 'llm_request') this.onLlmCall(dataOf(message));
      else this.waiters.shift()?.resolve(message);
    });
    socket.on('close', (code, reason) => {
      this.fail(new Error(`the session closed (${code} ${String(reason)})`));
      this.onClose();
    });
    socket.on('error', (error) => this.fail(error));
  }

  static connect(url: string, timeoutMs: number, token?: string): Promise<OpenEnvSession> {
    return new Promise((resolve, reject) => {
      const headers = token === undefined ? {} : { authorization: `Bearer ${token}` };
      const socket = new WebSocket(url, { handshakeTimeout: timeoutMs, headers });
      const session = new OpenEnvSession(socket);
      socket.once('open', () => resolve(session));
      socket.once('error', (error) => reject(new Error(`cannot connect to ${url}: ${error.message}`)));
    });
  }

  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Sends a message and resolves with its reply; an `error` reply rejects with its message. */
  async request(message: Message): Promise<Message> {
    if (this.failure !== null) throw this.failure;
    const reply = await new Promise<Message>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.send(message);
    });
    if (reply.type === 'error') {
      const data = dataOf(reply);
      throw new Error(`${String(data.reason ?? data.code ?? 'error')}: ${String(data.message ?? '')}`);
    }
    return reply;
  }

  send(message: Message): void {
    if (this.open) this.socket.send(JSON.stringify(message));
  }

  /** Ends the session: a `close` message (which ends its episode), then the socket. */
  close(): void {
    this.send({ type: 'close' });
    this.socket.close();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiter of this.waiters.splice(0)) waiter.reject(error);
  }
}

/** One OpenEnv episode as a SandboxEpisode; see OpenEnvSandbox. */
class OpenEnvEpisode implements SandboxEpisode {
  readonly depth: number;
  readonly limits: Readonly<SandboxLimits>;
  alive = true;
  steps = 0;
  /** The llm() calls of the step in flight. */
  private calls: LlmCallRecord[] = [];
  private readonly llm: LlmHandler | undefined;

  constructor(
    private readonly session: OpenEnvSession,
    readonly id: string,
    options: OpenEpisodeOptions,
  ) {
    this.depth = options.depth ?? 0;
    this.limits = resolveLimits(DEFAULT_LIMITS, options.limits);
    this.llm = options.llm;
    session.onLlmCall = (call) => void this.answer(call);
  }

  /** Runs a cell as a step; a session that fails ends the episode (`worker_crashed`), as a crashed worker would. */
  run(code: string): Promise<StepResult> {
    return this.step({ code });
  }

  /** Sends the final answer as REPLEnv's final action (`is_final`, `final_answer`); the reply carries its reward. */
  submit(answer: string): Promise<StepResult> {
    return this.step({ code: '', is_final: true, final_answer: answer }, true);
  }

  /** One step; the environment ending the episode is a `step_limit` error unless it answered or `final` was sent. */
  private async step(action: Message, final = false): Promise<StepResult> {
    if (!this.alive) return endedResult({ code: 'closed', message: 'the episode has ended' });
    this.calls = [];
    let observation: Message;
    try {
      observation = observationOf(await this.session.request({ type: 'step', data: action }));
    } catch (error) {
      this.alive = false;
      return endedResult({ code: 'worker_crashed', message: `the OpenEnv step failed: ${errorMessage(error)}` });
    }
    this.steps++;
    this.alive = observation.done !== true;
    const result = (observation.result ?? {}) as Message;
    const answer = typeof observation.answer === 'string' ? observation.answer : null;
    const error = stepErrorOf(observation, result);
    return {
      stdout: text(observation.stdout ?? result.stdout),
      truncatedChars: number(observation.truncated_chars),
      error:
        error === null && !this.alive && answer === null && !final
          ? { code: 'step_limit', message: `the environment ended the episode after ${this.steps} steps` }
          : error,
      variables: strings(observation.variables ?? observation.available_variables),
      cpuMs: number(observation.cpu_ms),
      wallMs: observation.wall_ms === undefined ? number(result.execution_time) * 1000 : number(observation.wall_ms),
      llmCalls: this.calls,
      alive: this.alive,
      answer,
      ...(typeof observation.reward === 'number' && Number.isFinite(observation.reward)
        ? { reward: observation.reward }
        : {}),
    };
  }

  /** Ends the episode and its session. Idempotent. */
  async close(): Promise<void> {
    this.alive = false;
    this.session.close();
  }

  /** Answers one llm() call of the step in flight with the episode's handler, at this episode's depth. */
  private async answer(call: Message): Promise<void> {
    const depth = this.depth + number(call.depth);
    const prompt = text(call.prompt);
    const chunk = typeof call.chunk === 'string' ? call.chunk : undefined;
    const started = performance.now();
    const record: LlmCallRecord = {
      depth,
      promptChars: prompt.length,
      chunkChars: chunk?.length ?? 0,
      promptTokens: 0,
      completionTokens: 0,
      wallMs: 0,
    };
    let data: Message;
    try {
      if (this.llm === undefined) throw new Error('llm() is not available');
      const tooDeep = depthRefusal(depth, this.limits.maxDepth);
      if (tooDeep !== null) throw new Error(tooDeep);
      const response = await this.llm({
        prompt,
        ...(chunk === undefined ? {} : { chunk }),
        depth,
        episodeId: this.id,
        tokenBudget: number(call.token_budget),
      });
      record.promptTokens = response.promptTokens;
      record.completionTokens = response.completionTokens;
      const reply = {
        text: response.text,
        prompt_tokens: response.promptTokens,
        completion_tokens: response.completionTokens,
      };
      data = { request_id: call.request_id, reply };
    } catch (error) {
      record.error = errorMessage(error);
      data = { request_id: call.request_id, error: record.error };
    }
    record.wallMs = performance.now() - started;
    this.calls.push(record);
    this.session.send({ type: 'llm_reply', data });
  }
}

/**
 * The observation of a reply (`{type: "observation", data: {observation, reward, done}}`), with `done` and `reward`
 * on it (the reply's, else the observation's own, as OpenEnv's Observation also carries them).
 */
function observationOf(reply: Message): Message {
  if (reply.type !== 'observation') throw new Error(`expected an observation, got a "${String(reply.type)}" message`);
  const data = dataOf(reply);
  const observation = (data.observation ?? {}) as Message;
  return {
    ...observation,
    done: data.done === true || observation.done === true,
    reward: data.reward ?? observation.reward,
  };
}

/** FATHOM's `error` when the server sends one; else REPLEnv's `result.success`/`exception` as a runtime error. */
function stepErrorOf(observation: Message, result: Message): StepError | null {
  if ('error' in observation) {
    const error = observation.error as Message | null;
    if (error === null) return null;
    const code = STEP_ERROR_CODES.includes(error.code as StepErrorCode) ? (error.code as StepErrorCode) : 'runtime';
    return { code, message: text(error.message) };
  }
  if (result.success === false) return { code: 'runtime', message: text(result.exception ?? result.stderr) };
  return null;
}

function dataOf(message: Message): Message {
  return (message.data ?? {}) as Message;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function number(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
