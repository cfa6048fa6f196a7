import * as grpc from '@grpc/grpc-js';
import type { TextGenerate } from '@fathom/rlm';
import { randomUUID } from 'node:crypto';
import { loadService } from '@fathom/rpc';

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

/** Port for text generation; the service depends on this, the gRPC client below implements it. */
export interface InferencePort {
  generate(request: GenerateRequest): Promise<GenerateReply>;
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

function inferenceClient(address: string) {
  const Inference = loadService('inference.proto', 'fathom.inference.v1.Inference');
  return new Inference(address, grpc.credentials.createInsecure());
}

/** Inference.Generate over gRPC. Failures reject with the gRPC error (its `code` tells unreachable from refused). */
export class GrpcInferenceClient implements InferencePort {
  private readonly client: ReturnType<typeof inferenceClient>;

  constructor(
    address: string,
    private readonly timeoutMs: number,
  ) {
    this.client = inferenceClient(address);
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

  close(): void {
    this.client.close();
  }
}
