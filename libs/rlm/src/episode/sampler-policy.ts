import { generateBatch, type DecodeBackend, type SpanReader, type Tokenizer } from '@fathom/model';
import type {
  Policy,
  SampledContinuation,
  SampleRequest,
  SamplingParams,
  SpanReadRequest,
  SpanReadResult,
} from './policy';
import { RolloutError } from './errors';
import { encodeReadInput, spanReadInput, spanText } from './read-input';

/**
 * A leaf read by `reader`: its prompt encoded with the reader's tokenizer, a span chosen, the chunk's text under it.
 * The one way a span head reads, in process (`SamplerPolicy`) or behind the Inference endpoint (its ReadSpan). A prompt
 * longer than the reader holds is RolloutError(InvalidArgument).
 */
export async function readWithSpan(reader: SpanReader, request: SpanReadRequest): Promise<SpanReadResult> {
  const encoded = encodeReadInput(request.question, request.chunk, reader.tokenizer, reader.heads);
  if (encoded.ids.length > reader.maxLength)
    throw new RolloutError(
      'INVALID_ARGUMENT',
      `llm() prompt of ${encoded.ids.length} tokens is longer than the reader's ${reader.maxLength}`,
    );
  const input = spanReadInput(encoded);
  const choice = await reader.read(input, { temperature: request.temperature, seed: request.seed });
  return {
    text: spanText(encoded, request.chunk, choice.start, choice.end),
    answered: choice.answered,
    promptTokens: encoded.ids.length,
    start: choice.start,
    end: choice.end,
    logprob: choice.logprob,
    input,
  };
}

/**
 * A `@fathom/model` decoder as a `Policy`: one `sample` call is one `generateBatch` call, so every continuation of
 * every request decodes in one batch (each prompt prefilled once, shared by its n continuations). With a `SpanReader`
 * (the model's own span head, or its paired reader's) leaf reads are answered by the span head (`readSpan`).
 */
export class SamplerPolicy implements Policy {
  readonly readSpan?: (request: SpanReadRequest) => Promise<SpanReadResult>;

  constructor(
    private readonly backend: DecodeBackend,
    readonly tokenizer: Tokenizer,
    readonly version: number,
    reader?: SpanReader,
  ) {
    if (reader !== undefined) this.readSpan = (request) => readWithSpan(reader, request);
  }

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
