import { randomInt } from 'node:crypto';
import { generate } from '@fathom/model';
import { InferenceError, InferenceErrorCode } from './inference.errors';
import type { InferenceModel, InferenceModelLoader } from './inference.model';

/** One Inference.Generate request, its proto fields resolved (an unset proto3 field is its zero value). */
export interface GenerateParams {
  /** The fully rendered prompt text; special-token strings in it (`<|im_start|>`) are encoded as their ids. */
  prompt: string;
  /** Most tokens to generate; fewer when the prompt leaves less room in the context. */
  maxTokens: number;
  /** 0 = greedy. */
  temperature: number;
  /** Strings that end the completion; the reply's text stops before the first one. */
  stop: readonly string[];
  /** Sampling seed; the same seed, prompt, parameters and weights give the same reply. Absent: a random one. */
  seed?: number;
}

export interface GenerateResult {
  /** The completion, without the end-of-turn/eos token or stop string that ended it. */
  text: string;
  promptTokens: number;
  /** Tokens sampled, the one that ended the completion included. */
  completionTokens: number;
  /** "stop": a stop token or stop string ended it; "length": max_tokens or the context ran out. */
  finishReason: 'stop' | 'length';
}

const SEED_RANGE = 2 ** 32;

function invalid(message: string): InferenceError {
  return new InferenceError(InferenceErrorCode.InvalidArgument, message);
}

/** Refuses what no model could answer, before the model is loaded. */
function checkParams(params: GenerateParams): void {
  if (params.prompt.length === 0) throw invalid('prompt is empty');
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1)
    throw invalid(`max_tokens must be at least 1, got ${params.maxTokens}`);
  if (!Number.isFinite(params.temperature) || params.temperature < 0)
    throw invalid(`temperature must be a finite number ≥ 0, got ${params.temperature}`);
  const empty = params.stop.findIndex((s) => s.length === 0);
  if (empty >= 0) throw invalid(`stop[${empty}] is an empty string`);
}

/** The text before the earliest stop string in it (all of it when none occurs). */
function cutAtStop(text: string, stop: readonly string[]): string {
  let end = text.length;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0 && at < end) end = at;
  }
  return text.slice(0, end);
}

/**
 * Answers Inference.Generate with one checkpoint (the llm() sub-calls of env-service episodes). The model is loaded
 * on the first request that needs it and kept; while loading fails (say the folder does not exist yet) every such
 * request fails with ModelUnavailable and the next one tries again.
 *
 * Requests run one at a time, in arrival order: each is chained after the previous one, so a process holds one
 * decode session at a time and its sampling does not compete with itself for the CPU. Callers that need more
 * throughput run more workers.
 */
export class InferenceService {
  private loaded: Promise<InferenceModel> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly load: InferenceModelLoader) {}

  /**
   * Generates one completion. Rejects with InferenceError: InvalidArgument naming the field and its limit,
   * ModelUnavailable when the checkpoint cannot be loaded, Cancelled when `signal` aborted before its turn came.
   */
  generate(params: GenerateParams, signal?: AbortSignal): Promise<GenerateResult> {
    try {
      checkParams(params);
    } catch (error) {
      return Promise.reject(error);
    }
    const run = this.queue.then(() => this.run(params, signal));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Waits for the queued requests, then releases the model. */
  async close(): Promise<void> {
    await this.queue;
    const model = await this.loaded?.catch(() => null);
    this.loaded = null;
    await model?.release();
  }

  private model(): Promise<InferenceModel> {
    this.loaded ??= this.load().catch((error: unknown) => {
      this.loaded = null;
      throw error;
    });
    return this.loaded;
  }

  private async run(params: GenerateParams, signal: AbortSignal | undefined): Promise<GenerateResult> {
    if (signal?.aborted)
      throw new InferenceError(InferenceErrorCode.Cancelled, 'the caller cancelled before generation started');
    const { decoder, tokenizer, stopTokens } = await this.model();
    const prompt = tokenizer.encode(params.prompt);
    if (prompt.length >= decoder.maxLength) {
      throw invalid(
        `prompt is ${prompt.length} tokens; the model's context holds ${decoder.maxLength}, so a prompt may have at ` +
          `most ${decoder.maxLength - 1}`,
      );
    }
    const [completion] = await generate(
      decoder,
      prompt,
      {
        maxNewTokens: params.maxTokens,
        temperature: params.temperature,
        stopTokens,
        stopStrings: params.stop,
        seed: params.seed ?? randomInt(SEED_RANGE),
      },
      tokenizer,
    );
    const kept = completion.finishReason === 'stop_token' ? completion.tokens.slice(0, -1) : completion.tokens;
    const decoded = tokenizer.decode(kept);
    return {
      text: completion.finishReason === 'stop_string' ? cutAtStop(decoded, params.stop) : decoded,
      promptTokens: prompt.length,
      completionTokens: completion.tokens.length,
      finishReason: completion.finishReason === 'length' ? 'length' : 'stop',
    };
  }
}
