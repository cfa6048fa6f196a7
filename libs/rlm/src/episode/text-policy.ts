import { IM_END } from '../prompt';
import { RolloutError } from './errors';
import type {
  Policy,
  PolicyTokenizer,
  SampledContinuation,
  SampleRequest,
  SamplingParams,
  SpanReadRequest,
  SpanReadResult,
} from './policy';

/** One text completion from an endpoint that takes rendered prompt text (FATHOM's gRPC Inference, an HTTP API). */
export interface TextGenerationRequest {
  prompt: string;
  maxTokens: number;
  temperature: number;
  /** Strings that end the completion; the reply's text stops before the first one. */
  stop: string[];
  seed: number;
}

export interface TextGenerationReply {
  text: string;
  /** 'stop': a stop string or the end-of-turn token ended it; 'length': the token limit did. */
  finishReason: 'stop' | 'length';
}

export type TextGenerate = (request: TextGenerationRequest) => Promise<TextGenerationReply>;

/** A leaf read by an endpoint's span reader (FATHOM's gRPC Inference.ReadSpan). */
export type EndpointSpanRead = (request: SpanReadRequest) => Promise<SpanReadResult>;

/**
 * A policy served by a text endpoint, so the episode loop can drive a model it does not hold (the env-service's
 * inference endpoint). Ids are the given tokenizer's encoding of the text the endpoint returned; behaviour
 * log-probs are not known and are 0, so trajectories of this policy are for evaluation and serving, not training.
 * Given `spanRead` (an endpoint whose model has a span reader), its leaf reads are span reads (`readSpan`); without
 * it they are generated.
 */
export class TextEndpointPolicy implements Policy {
  readonly readSpan?: EndpointSpanRead;
  private readonly imEnd: number;

  constructor(
    private readonly generate: TextGenerate,
    readonly tokenizer: PolicyTokenizer,
    readonly maxLength: number,
    readonly version = 0,
    spanRead?: EndpointSpanRead,
  ) {
    const imEnd = tokenizer.tokenId(IM_END);
    if (imEnd === undefined) throw new RolloutError('INVALID_TOKENIZER', `the tokenizer has no id for ${IM_END}`);
    this.imEnd = imEnd;
    if (spanRead !== undefined) this.readSpan = spanRead;
  }

  /** Sends every continuation of every request at once, so a batch costs the endpoint's latency once. */
  async sample(requests: readonly SampleRequest[], params: SamplingParams): Promise<SampledContinuation[][]> {
    if (requests.some((r) => r.spanOf !== undefined || r.spanWordTokens !== undefined))
      throw new RolloutError(
        'INVALID_ARGUMENT',
        'extractive (span-constrained) reads need a local model policy: a text endpoint cannot constrain its tokens',
      );
    return Promise.all(
      requests.map((request) => {
        const prompt = this.tokenizer.decode(request.prompt);
        return Promise.all(
          Array.from({ length: request.n }, async (_, j) => {
            const reply = await this.generate({
              prompt,
              maxTokens: request.maxNewTokens,
              temperature: params.temperature,
              stop: [IM_END],
              seed: (request.seed + j) >>> 0,
            });
            return this.continuation(reply, request.maxNewTokens);
          }),
        );
      }),
    );
  }

  /** The reply as ids within `maxNewTokens`: ended by `<|im_end|>` when the endpoint stopped, cut otherwise. */
  private continuation(reply: TextGenerationReply, maxNewTokens: number): SampledContinuation {
    const text = this.tokenizer.encode(reply.text);
    const stopped = reply.finishReason === 'stop' && text.length < maxNewTokens;
    const tokens = stopped ? [...text, this.imEnd] : text.slice(0, maxNewTokens);
    // An empty reply cut by length still has to be one token long for the loop: it ends the turn.
    if (tokens.length === 0) tokens.push(this.imEnd);
    return {
      tokens,
      logprobs: tokens.map(() => 0),
      finishReason: stopped || tokens.at(-1) === this.imEnd ? 'stop_token' : 'length',
    };
  }
}
