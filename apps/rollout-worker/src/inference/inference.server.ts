import * as grpc from '@grpc/grpc-js';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { Logger } from '@fathom/observability';
import { GrpcCall, startGrpcService, StatusError, StatusErrorFilter, type GrpcServing } from '@fathom/rpc';
import { InferenceError, InferenceErrorCode } from './inference.errors';
import type { InferenceModelLoader } from './inference.model';
import { InferenceService, type GenerateParams } from './inference.service';
import type { loadService } from '@fathom/rpc';

type InferenceConstructor = ReturnType<typeof loadService<'inference.proto', 'fathom.inference.v1.Inference'>>;
type GenerateDefinition = InferenceConstructor['service']['Generate'];
/** GenerateRequest as the server receives it (generated types, libs/rpc/src/generated/fathom/inference/v1). */
type GenerateRequestMessage = ReturnType<GenerateDefinition['requestDeserialize']>;
type GenerateReplyMessage = Parameters<GenerateDefinition['responseSerialize']>[0];

export interface InferenceServerOptions {
  host: string;
  /** 0 binds any free port; the bound one is returned. */
  port: number;
  /** The weights that answer, loaded on the first request (`checkpointModelLoader(INFERENCE_CHECKPOINT)`). */
  load: InferenceModelLoader;
  logger: Logger;
}

export interface InferenceServerHandle {
  port: number;
  /** Stops accepting calls, lets the running one finish (SHUTDOWN_GRACE_MS at most), releases the model. */
  close(): Promise<void>;
}

/** The gRPC status of each refusal. */
export function inferenceStatus(code: InferenceErrorCode): grpc.status {
  switch (code) {
    case InferenceErrorCode.InvalidArgument:
      return grpc.status.INVALID_ARGUMENT;
    case InferenceErrorCode.ModelUnavailable:
      return grpc.status.FAILED_PRECONDITION;
    case InferenceErrorCode.Cancelled:
      return grpc.status.CANCELLED;
  }
}

/** Unset proto3 fields arrive absent (PROTO_LOADER_OPTIONS has `defaults: false`); they mean their zero value. */
function toParams(request: GenerateRequestMessage): GenerateParams {
  return {
    prompt: request.prompt ?? '',
    maxTokens: request.max_tokens ?? 0,
    temperature: request.temperature ?? 0,
    stop: request.stop ?? [],
    seed: request.seed,
  };
}

/**
 * proto/inference.proto for the env-service's llm() sub-calls: Generate samples one completion of the rendered prompt
 * with the model `load` gives (see InferenceService: one request at a time, model loaded once). A bad request is
 * INVALID_ARGUMENT naming the field, a model that cannot be loaded is FAILED_PRECONDITION naming the folder, an
 * unexpected failure is INTERNAL and logged; the server keeps serving either way.
 */
@Controller()
@UseFilters(StatusErrorFilter)
export class InferenceController {
  constructor(
    @Inject(InferenceService) private readonly service: InferenceService,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  @GrpcMethod('Inference', 'Generate')
  async generate(
    @Payload() request: GenerateRequestMessage,
    @GrpcCall() call: grpc.ServerUnaryCall<GenerateRequestMessage, GenerateReplyMessage>,
  ): Promise<GenerateReplyMessage> {
    const fields = { request_id: request.request_id, episode_id: request.episode_id, depth: request.depth };
    const cancelled = new AbortController();
    call.on('cancelled', () => cancelled.abort());
    const started = performance.now();
    try {
      const result = await this.service.generate(toParams(request), cancelled.signal);
      this.logger.debug('Generate answered', {
        ...fields,
        prompt_tokens: result.promptTokens,
        completion_tokens: result.completionTokens,
        finish_reason: result.finishReason,
        ms: Math.round(performance.now() - started),
      });
      return {
        text: result.text,
        prompt_tokens: result.promptTokens,
        completion_tokens: result.completionTokens,
        finish_reason: result.finishReason,
      };
    } catch (error) {
      if (!(error instanceof InferenceError)) throw error;
      // A missing model is the operator's to fix; a bad request is the caller's and already in its reply.
      if (error.code === InferenceErrorCode.ModelUnavailable) {
        this.logger.warn('Generate refused', { ...fields, code: error.code, reason: error.message });
      }
      throw new StatusError(inferenceStatus(error.code), error.message);
    }
  }
}

/** The Inference service answered by `service`, as the rollout workers serve it. */
export function inferenceServing(service: InferenceService): GrpcServing {
  return {
    services: [{ proto: 'inference.proto', name: 'fathom.inference.v1.Inference' }],
    controllers: [InferenceController],
    providers: [{ provide: InferenceService, useValue: service }],
  };
}

/** Serves the Inference service alone on host:port (tests); `close` also releases the model. */
export async function startInferenceServer(options: InferenceServerOptions): Promise<InferenceServerHandle> {
  const service = new InferenceService(options.load);
  const server = await startGrpcService({ ...options, ...inferenceServing(service) });
  return {
    port: server.port,
    close: async () => {
      await server.close();
      await service.close();
    },
  };
}
