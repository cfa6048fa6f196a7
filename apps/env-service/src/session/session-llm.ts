import type { SessionLlmReply, SessionLlmRequest } from '@fathom/contracts';
import type { LlmRequest, LlmResponse } from '@fathom/sandbox';
import { randomUUID } from 'node:crypto';
import { EnvError } from '../errors';

interface Waiting {
  resolve: (response: LlmResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * The llm() of episodes reset with `serve_llm`, answered by the session's client: each guest call is sent to the
 * client as an `llm_request` and returns its `llm_reply`, so the client's own episode engine and model (the policy
 * being trained, in a rollout worker) decide what the call means and write it. A call left unanswered fails after
 * `timeoutMs`; when the client can answer no more (the session ended or half-closed) every waiting call fails and
 * new ones fail at once. A failure becomes an error of the guest's llm(), as an unreachable endpoint's would.
 */
export class SessionLlm {
  private readonly waiting = new Map<string, Waiting>();
  private closed = false;

  constructor(
    private readonly send: (request: SessionLlmRequest) => void,
    private readonly timeoutMs: number,
    /** Called whenever a call starts or stops waiting for the client (see `waiting`). */
    private readonly onWaitingChange: () => void = () => {},
  ) {}

  /** Calls sent to the client and not yet answered, failed or timed out. */
  get waitingCalls(): number {
    return this.waiting.size;
  }

  /** The LlmHandler of the session's episode. */
  readonly call = (request: LlmRequest): Promise<LlmResponse> => {
    if (this.closed) return Promise.reject(new Error("the session's client can no longer answer llm() calls"));
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.onWaitingChange();
        reject(new Error(`the session's client did not answer llm_request ${id} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.onWaitingChange();
      this.send({
        request_id: id,
        episode_id: request.episodeId,
        depth: request.depth,
        prompt: request.prompt,
        ...(request.chunk === undefined ? {} : { chunk: request.chunk }),
        token_budget: request.tokenBudget,
      });
    });
  };

  /** Settles the call an llm_reply names; a reply naming no waiting call is a VALIDATION_ERROR. */
  answer(reply: SessionLlmReply): void {
    const waiting = this.waiting.get(reply.request_id);
    if (waiting === undefined) {
      throw new EnvError(
        'VALIDATION_ERROR',
        `llm_reply.request_id "${reply.request_id}" names no llm_request waiting for an answer in this session`,
      );
    }
    this.waiting.delete(reply.request_id);
    this.onWaitingChange();
    clearTimeout(waiting.timer);
    if (reply.reply === undefined) {
      waiting.reject(new Error(`the session's client could not answer: ${reply.error ?? 'no reason given'}`));
      return;
    }
    waiting.resolve({
      text: reply.reply.text,
      promptTokens: reply.reply.prompt_tokens ?? 0,
      completionTokens: reply.reply.completion_tokens ?? 0,
    });
  }

  /** The client can answer no more: every waiting call fails, and later ones fail at once. */
  close(): void {
    this.closed = true;
    for (const [id, waiting] of this.waiting) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(`the session ended before its client answered llm_request ${id}`));
    }
    this.waiting.clear();
    this.onWaitingChange();
  }
}
