import * as grpc from '@grpc/grpc-js';
import type { EndpointSpanRead, TextGenerate } from '@fathom/rlm';
import { randomUUID } from 'node:crypto';
import { loadService, tokenClientOptions } from '@fathom/rpc';

/** One generation request, as in proto/inference.proto. */
export interface GenerateRequest {
  prompt: string;
  max_tokens: number;
  temperature: number;
  stop?: string[];
  seed?: number;
  episode_id: string;
  depth: number;
  request_id?: string;
}

export interface GenerateReply {
  text: string;
  prompt_tokens: number;
  completion_tokens: number;
  finish_reason: string;
}

/** One leaf read by the endpoint's span reader, as in proto/inference.proto (ReadSpan). */
export interface ReadSpanRequest {
  question: string;
  chunk: string;
  temperature: number;
  seed?: number;
  episode_id: string;
  depth: number;
  request_id?: string;
}

export interface ReadSpanReply {
  /** The chunk's text under the span, or "unknown". */
  text: string;
  answered: boolean;
  start: number;
  end: number;
  logprob: number;
  prompt_tokens: number;
}

/** Port for text generation and span reads; the services depend on this, the gRPC client below implements it. */
export interface InferencePort {
  generate(request: GenerateRequest): Promise<GenerateReply>;
  /**
   * Whether the endpoint answers `readSpan` (its checkpoint has a span head or a paired reader). Absent, like
   * `readSpan`, for an endpoint that only generates.
   */
  hasSpanReader?(): Promise<boolean>;
  readSpan?(request: ReadSpanRequest): Promise<ReadSpanReply>;
  close(): void;
}

/**
 * The episode engine's text generation (a `TextEndpointPolicy`'s) over the Inference port; every request is labelled
 * with the episode and depth it serves.
 */
export function inferenceTextGenerate(inference: InferencePort, episodeId: string, depth: number): TextGenerate {
  return async (text) => {
    const reply = await inference.generate({
      prompt: text.prompt,
      max_tokens: text.maxTokens,
      temperature: text.temperature,
      stop: text.stop,
      seed: text.seed,
      episode_id: episodeId,
      depth,
      request_id: randomUUID(),
    });
    return { text: reply.text, finishReason: reply.finish_reason === 'length' ? 'length' : 'stop' };
  };
}

/**
 * The episode engine's span reads (a `TextEndpointPolicy`'s `readSpan`) over the Inference port, labelled like
 * `inferenceTextGenerate`'s requests: undefined when the endpoint has no span reader, so leaf reads are generated.
 * Rejects when the endpoint cannot say (its checkpoint cannot be loaded, it is unreachable).
 */
export async function inferenceSpanRead(
  inference: InferencePort,
  episodeId: string,
  depth: number,
): Promise<EndpointSpanRead | undefined> {
  const readSpan = inference.readSpan?.bind(inference);
  if (readSpan === undefined || !(await inference.hasSpanReader?.())) return undefined;
  return async (read) => {
    const reply = await readSpan({
      question: read.question,
      chunk: read.chunk,
      temperature: read.temperature,
      seed: read.seed,
      episode_id: episodeId,
      depth,
      request_id: randomUUID(),
    });
    return {
      text: reply.text,
      answered: reply.answered,
      start: reply.start,
      end: reply.end,
      logprob: reply.logprob,
      promptTokens: reply.prompt_tokens,
    };
  };
}

function inferenceClient(address: string, token: string | undefined) {
  const Inference = loadService('inference.proto', 'fathom.inference.v1.Inference');
  return new Inference(address, grpc.credentials.createInsecure(), tokenClientOptions(token));
}

/**
 * Inference.Generate, Describe and ReadSpan over gRPC. Failures reject with the gRPC error (its `code` tells
 * unreachable from refused).
 */
export class GrpcInferenceClient implements InferencePort {
  private readonly client: ReturnType<typeof inferenceClient>;
  /** Describe's answer, asked once; forgotten when it failed or a ReadSpan is refused FAILED_PRECONDITION. */
  private spanReader: Promise<boolean> | null = null;

  /** `token`: the Inference server's GRPC_TOKEN, sent with every call. */
  constructor(
    address: string,
    private readonly timeoutMs: number,
    token?: string,
  ) {
    this.client = inferenceClient(address, token);
  }

  generate(request: GenerateRequest): Promise<GenerateReply> {
    return new Promise((resolve, reject) => {
      this.client.Generate(request, { deadline: Date.now() + this.timeoutMs }, (error, reply) => {
        if (error) reject(error);
        else
          resolve({
            text: reply?.text ?? '',
            prompt_tokens: reply?.prompt_tokens ?? 0,
            completion_tokens: reply?.completion_tokens ?? 0,
            finish_reason: reply?.finish_reason ?? '',
          });
      });
    });
  }

  /**
   * Whether the endpoint's checkpoint has a span reader (Inference.Describe, asked once). An endpoint that does not
   * know Describe (UNIMPLEMENTED: one from before span reads, or a scripted test double) only generates.
   */
  hasSpanReader(): Promise<boolean> {
    this.spanReader ??= new Promise<boolean>((resolve, reject) => {
      this.client.Describe({}, { deadline: Date.now() + this.timeoutMs }, (error, reply) => {
        if (error?.code === grpc.status.UNIMPLEMENTED) resolve(false);
        else if (error) reject(error);
        else resolve(reply?.span_reader ?? false);
      });
    }).catch((error: unknown) => {
      this.spanReader = null;
      throw error;
    });
    return this.spanReader;
  }

  readSpan(request: ReadSpanRequest): Promise<ReadSpanReply> {
    return new Promise((resolve, reject) => {
      this.client.ReadSpan(request, { deadline: Date.now() + this.timeoutMs }, (error, reply) => {
        if (error) {
          // The endpoint has no reader (any more: restarted on another checkpoint): ask Describe again next time.
          if (error.code === grpc.status.FAILED_PRECONDITION) this.spanReader = null;
          reject(error);
        } else
          resolve({
            text: reply?.text ?? '',
            answered: reply?.answered ?? false,
            start: reply?.start ?? 0,
            end: reply?.end ?? 0,
            logprob: reply?.logprob ?? 0,
            prompt_tokens: reply?.prompt_tokens ?? 0,
          });
      });
    });
  }

  close(): void {
    this.client.close();
  }
}
