/**
 * What the episode loop needs from a policy. Shaped after `@fathom/model`'s sampler (`generate`,
 * `SamplingOptions`, `Completion`, `Tokenizer`), so `SamplerPolicy` adapts a model in a few lines, and remote
 * inference (a rollout worker's gRPC endpoint) can implement the same interface.
 */

/** Text ↔ ids; the subset of `@fathom/model`'s `Tokenizer` the episode loop uses. */
export interface PolicyTokenizer {
  /** Encodes text; special-token strings in it (`<|im_start|>`, `<|im_end|>`) become their ids. Adds nothing. */
  encode(text: string): number[];
  /** Decodes ids; special tokens are rendered as their text. */
  decode(ids: readonly number[]): string;
  /** The id of a special or ordinary token by its text. */
  tokenId(token: string): number | undefined;
}

/** One prompt to continue `n` times; the n continuations share the prompt's prefill. */
export interface SampleRequest {
  /** Exact prompt ids (never re-encoded by the policy). */
  prompt: readonly number[];
  n: number;
  maxNewTokens: number;
  /** PRNG seed of this request; the same seed, prompt, options and weights give the same continuations. */
  seed: number;
  /**
   * Extractive decoding: each continuation is a non-empty run of consecutive ids of one of these sequences, then a
   * stop id (`SpanConstraint` of `@fathom/model`). A policy that cannot constrain its tokens rejects the request.
   */
  spanOf?: readonly (readonly number[])[];
  /** With spanOf: the ids that are part of a word; a continuation then starts and ends only at word edges. */
  spanWordTokens?: readonly number[];
  /**
   * The prompt continues an earlier request's prompt and continuation (an episode's next turn): a policy that keeps
   * decoded prefixes may start from one instead of prefilling the whole prompt. A hint; the result is the same.
   */
  reuse?: boolean;
}

export interface SamplingParams {
  /** 0 = greedy. */
  temperature: number;
  /** Nucleus mass (1 = off). */
  topP: number;
  /** Keep the k most likely tokens (0 = off). */
  topK: number;
  /** Ids that end a continuation; the stop token is kept as its last id. */
  stopTokens: readonly number[];
}

export type PolicyFinishReason = 'stop_token' | 'stop_string' | 'length';

export interface SampledContinuation {
  /** Exactly the ids sampled, stop token included. */
  tokens: number[];
  /** Behaviour log-prob of each sampled id under the distribution it was drawn from (0 for greedy picks). */
  logprobs: number[];
  finishReason: PolicyFinishReason;
}

/** One leaf read by a span head: `llm(question, chunk)`, and how to choose the span. */
export interface SpanReadRequest {
  question: string;
  chunk: string;
  /** 0 = the best span; otherwise a start, then an end, drawn at this temperature. */
  temperature: number;
  seed: number;
}

/** What a span read answered: the chunk's text under the span (or "unknown"), and how the head chose it. */
export interface SpanReadResult {
  text: string;
  /** False when the read chose the no-answer position ("unknown"). */
  answered: boolean;
  /** The span in the reader's prompt positions (start = end = the no-answer position for "unknown"); `end` inclusive. */
  start: number;
  end: number;
  logprob: number;
  /** Ids of the reader's prompt. */
  promptTokens: number;
  /**
   * The reader's encoded prompt: its ids, exact-match input and span candidates (what a learner scores again). Absent
   * from a read served by another process (the Inference endpoint), which is not trained on.
   */
  input?: { ids: number[]; match: number[]; starts: number[]; ends: number[]; none: number };
}

export interface Policy {
  readonly tokenizer: PolicyTokenizer;
  /** The weights' version; stamped on every trajectory sampled with them. */
  readonly version: number;
  /** Longest sequence (prompt + continuation) the policy can hold. */
  readonly maxLength: number;
  /**
   * Samples `requests[i].n` continuations of each prompt, in one batched call; result[i][j] is the j-th
   * continuation of request i. Rejects on failure of the policy itself (an infra error for the caller).
   */
  sample(requests: readonly SampleRequest[], params: SamplingParams): Promise<SampledContinuation[][]>;
  /**
   * Answers a leaf read with a span head (a checkpoint with `fathom_reader`, or its paired reader). Absent for a
   * policy that reads by generation (a plain decoder, an OpenAI-compatible endpoint).
   */
  readSpan?(request: SpanReadRequest): Promise<SpanReadResult>;
}
