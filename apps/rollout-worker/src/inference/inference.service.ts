import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { generate } from '@fathom/model';
import { readWithSpan, RolloutError, type SpanReadResult } from '@fathom/rlm';
import { PAIRED_READER_DIR } from '@fathom/training';
import { InferenceError } from './inference.errors';
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

/** One Inference.ReadSpan request, its proto fields resolved: the leaf read `llm(question, chunk)`. */
export interface ReadSpanParams {
  question: string;
  chunk: string;
  /** 0 = the best span; otherwise a start, then an end, drawn at this temperature. */
  temperature: number;
  /** Sampling seed; the same seed, inputs and weights give the same span. Absent: a random one. */
  seed?: number;
}

/** What a span read answered (the reader's encoded prompt stays in this process). */
export type ReadSpanResult = Omit<SpanReadResult, 'input'>;

const SEED_RANGE = 2 ** 32;

function invalid(message: string): InferenceError {
  return new InferenceError('INVALID_ARGUMENT', message);
}

/** Refuses what no model could answer, before the model is loaded. */
function checkParams(params: GenerateParams): void {
  if (params.prompt.length === 0) throw invalid('prompt is empty');
  if (!Number.isInteger(params.maxTokens) || params.maxTokens < 1)
    throw invalid(`max_tokens must be at least 1, got ${params.maxTokens}`);
  checkTemperature(params.temperature);
  const empty = params.stop.findIndex((s) => s.length === 0);
  if (empty >= 0) throw invalid(`stop[${empty}] is an empty string`);
}

function checkTemperature(temperature: number): void {
  if (!Number.isFinite(temperature) || temperature < 0)
    throw invalid(`temperature must be a finite number ≥ 0, got ${temperature}`);
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
 * Answers Inference.Generate and ReadSpan with one checkpoint (the llm() sub-calls of env-service episodes). The model
 * is loaded
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
    return this.enqueue(signal, () => this.run(params));
  }

  /** Whether the checkpoint answers span reads; loads it first (rejects with ModelUnavailable when it cannot). */
  async describe(): Promise<{ spanReader: boolean }> {
    return { spanReader: (await this.model()).reader !== null };
  }

  /**
   * Reads a leaf with the checkpoint's span reader, as a local `SamplerPolicy` would (`readWithSpan`). Rejects with
   * InferenceError: InvalidArgument for a bad temperature or a prompt longer than the reader holds, ModelUnavailable,
   * NoSpanReader naming the checkpoint when it has no span reader, Cancelled as `generate`.
   */
  readSpan(params: ReadSpanParams, signal?: AbortSignal): Promise<ReadSpanResult> {
    try {
      checkTemperature(params.temperature);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue(signal, () => this.read(params));
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

  /** Runs `task` after every request before it, unless `signal` aborted while it waited. */
  private enqueue<T>(signal: AbortSignal | undefined, task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (signal?.aborted) throw new InferenceError('CANCELLED', 'the caller cancelled before its request started');
      return task();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async read(params: ReadSpanParams): Promise<ReadSpanResult> {
    const { reader, source } = await this.model();
    if (reader === null)
      throw new InferenceError(
        'NO_SPAN_READER',
        `inference checkpoint ${source} has no span reader (neither a span head nor a paired reader in ` +
          `${join(source, PAIRED_READER_DIR)}), so it answers llm() reads with Generate only`,
      );
    try {
      const read = await readWithSpan(reader, {
        question: params.question,
        chunk: params.chunk,
        temperature: params.temperature,
        seed: params.seed ?? randomInt(SEED_RANGE),
      });
      const { text, answered, start, end, logprob, promptTokens } = read;
      return { text, answered, start, end, logprob, promptTokens };
    } catch (error) {
      if (error instanceof RolloutError && error.code === 'INVALID_ARGUMENT') throw invalid(error.message);
      throw error;
    }
  }

  private async run(params: GenerateParams): Promise<GenerateResult> {
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
