import type { EpisodeTrajectory, EpisodeTurn } from '@fathom/contracts';
import { cutAtStop } from './chat-request';
import type { ChatTurnReply } from './chat.service';

/** What every reply of one completion shares. */
export interface CompletionMeta {
  id: string;
  model: string;
  /** Unix seconds. */
  created: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/**
 * Usage of the whole episode as its recursion tree counts it: prompt_tokens are the root episode's tokens it did not
 * write (prompt and observations), completion_tokens its sampled tokens plus every llm() sub-call's tokens (prompt and
 * completion, at every depth). `fathom.tokens` has the split.
 */
export function usageOf(trajectory: EpisodeTrajectory): Usage {
  const prompt = trajectory.recursionTree.promptTokens;
  const completion = trajectory.recursionTree.completionTokens;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** "stop" when the episode answered; "length" when a limit (turns, tokens, sandbox time) ended it without one. */
export function finishReasonOf(trajectory: EpisodeTrajectory): 'stop' | 'length' {
  return trajectory.answer === null ? 'length' : 'stop';
}

/** The FATHOM extension of a reply's end: how the episode ended and its recursion tree (additive to OpenAI's shape). */
function episodeOutcome(trajectory: EpisodeTrajectory) {
  return {
    status: trajectory.status,
    stop_reason: trajectory.stopReason,
    recursion_tree: trajectory.recursionTree,
    tokens: trajectory.tokens,
  };
}

/** The answer as the reply's content: cut before the request's first stop string it holds (`""` when none). */
export function contentOf(trajectory: EpisodeTrajectory, stop: readonly string[]): string {
  return cutAtStop(trajectory.answer ?? '', stop);
}

/** A `chat.completion` object with one assistant message. */
function completionObject(meta: CompletionMeta, content: string, finishReason: 'stop' | 'length', usage: Usage) {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason, logprobs: null }],
    usage,
  };
}

/** The `chat.completion` object of a finished episode, with the trace under `fathom`. */
export function completionBody(meta: CompletionMeta, trajectory: EpisodeTrajectory, stop: readonly string[]) {
  return {
    ...completionObject(meta, contentOf(trajectory, stop), finishReasonOf(trajectory), usageOf(trajectory)),
    fathom: { ...episodeOutcome(trajectory), turns: trajectory.turns },
  };
}

/**
 * The `chat.completion` object of one turn written for a FATHOM client (no episode ran here, so no `fathom` trace):
 * the turn cut before the first stop string it holds, and the Inference endpoint's token counts.
 */
export function turnBody(meta: CompletionMeta, reply: ChatTurnReply, stop: readonly string[]) {
  return completionObject(meta, cutAtStop(reply.text, stop), reply.finishReason, {
    prompt_tokens: reply.promptTokens,
    completion_tokens: reply.completionTokens,
    total_tokens: reply.promptTokens + reply.completionTokens,
  });
}

type Delta = { role?: 'assistant'; content?: string };

function chunk(meta: CompletionMeta, delta: Delta, finishReason: 'stop' | 'length' | null, extra: object = {}) {
  return {
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
    ...extra,
  };
}

/** The `chat.completion.chunk` objects of a streamed completion, in the order they are sent. */
export const chunks = {
  /** First: the role, as OpenAI streams open. */
  start: (meta: CompletionMeta) => chunk(meta, { role: 'assistant', content: '' }, null),
  /** One per finished turn of the root episode; the content is unchanged, the turn is in `fathom.turn`. */
  turn: (meta: CompletionMeta, index: number, turn: EpisodeTurn) =>
    chunk(meta, {}, null, { fathom: { turn: { index, ...turn } } }),
  answer: (meta: CompletionMeta, trajectory: EpisodeTrajectory, stop: readonly string[]) =>
    chunk(meta, { content: contentOf(trajectory, stop) }, null),
  finish: (meta: CompletionMeta, trajectory: EpisodeTrajectory) =>
    chunk(meta, {}, finishReasonOf(trajectory), { fathom: episodeOutcome(trajectory) }),
  /** Only with `stream_options.include_usage`, as OpenAI: no choices, the usage of the whole episode. */
  usage: (meta: CompletionMeta, trajectory: EpisodeTrajectory) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    choices: [],
    usage: usageOf(trajectory),
  }),
};
