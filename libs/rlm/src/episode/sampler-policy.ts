import { generate, type DecodeBackend, type Tokenizer } from '@fathom/model';
import type { Policy, SampledContinuation, SampleRequest, SamplingParams } from './policy';

/**
 * A `@fathom/model` decoder as a `Policy`: each request is one `generate` call (its n continuations share one
 * prefill); requests run one after another, since a CPU decoder gains nothing from interleaving them.
 */
export class SamplerPolicy implements Policy {
  constructor(
    private readonly backend: DecodeBackend,
    readonly tokenizer: Tokenizer,
    readonly version: number,
  ) {}

  get maxLength(): number {
    return this.backend.maxLength;
  }

  async sample(requests: readonly SampleRequest[], params: SamplingParams): Promise<SampledContinuation[][]> {
    const results: SampledContinuation[][] = [];
    for (const request of requests) {
      const completions = await generate(this.backend, request.prompt, {
        n: request.n,
        maxNewTokens: request.maxNewTokens,
        temperature: params.temperature,
        topP: params.topP,
        topK: params.topK,
        stopTokens: params.stopTokens,
        seed: request.seed,
        spanOf: request.spanOf,
        spanWordTokens: request.spanWordTokens,
      });
      results.push(completions.map((c) => ({ tokens: c.tokens, logprobs: c.logprobs, finishReason: c.finishReason })));
    }
    return results;
  }
}
