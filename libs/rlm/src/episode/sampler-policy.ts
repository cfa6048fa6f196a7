import { generateBatch, type DecodeBackend, type Tokenizer } from '@fathom/model';
import type { Policy, SampledContinuation, SampleRequest, SamplingParams } from './policy';

/**
 * A `@fathom/model` decoder as a `Policy`: one `sample` call is one `generateBatch` call, so every continuation of
 * every request decodes in one batch (each prompt prefilled once, shared by its n continuations).
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
    const results = await generateBatch(this.backend, requests, {
      temperature: params.temperature,
      topP: params.topP,
      topK: params.topK,
      stopTokens: params.stopTokens,
    });
    return results.map((completions) =>
      completions.map((c) => ({ tokens: c.tokens, logprobs: c.logprobs, finishReason: c.finishReason })),
    );
  }
}
