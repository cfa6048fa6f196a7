import * as grpc from '@grpc/grpc-js';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod, Payload } from '@nestjs/microservices';
import { Logger } from '@fathom/observability';
import { GrpcCall, startGrpcService, StatusError, StatusErrorFilter, type GrpcServing } from '@fathom/rpc';
import { InferenceError, type InferenceErrorCode } from './inference.errors';
import type { InferenceModelLoader } from './inference.model';
import { InferenceService, type GenerateParams, type ReadSpanParams } from './inference.service';
import type { loadService } from '@fathom/rpc';

type InferenceConstructor = ReturnType<typeof loadService<'inference.proto', 'fathom.inference.v1.Inference'>>;
type GenerateDefinition = InferenceConstructor['service']['Generate'];
/** GenerateRequest as the server receives it (generated types, libs/rpc/src/generated/fathom/inference/v1). */
type GenerateRequestMessage = ReturnType<GenerateDefinition['requestDeserialize']>;
type GenerateReplyMessage = Parameters<GenerateDefinition['responseSerialize']>[0];
type ReadSpanDefinition = InferenceConstructor['service']['ReadSpan'];
type ReadSpanRequestMessage = ReturnType<ReadSpanDefinition['requestDeserialize']>;
type ReadSpanReplyMessage = Parameters<ReadSpanDefinition['responseSerialize']>[0];
type DescribeReplyMessage = Parameters<InferenceConstructor['service']['Describe']['responseSerialize']>[0];

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
    case 'INVALID_ARGUMENT':
      return grpc.status.INVALID_ARGUMENT;
    case 'MODEL_UNAVAILABLE':
    case 'NO_SPAN_READER':
      return grpc.status.FAILED_PRECONDITION;
    case 'CANCELLED':
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

function toReadParams(request: ReadSpanRequestMessage): ReadSpanParams {
  return {
    question: request.question ?? '',
    chunk: request.chunk ?? '',
    temperature: request.temperature ?? 0,
    seed: request.seed,
  };
}

/**
 * proto/inference.proto for the env-service's llm() sub-calls: Generate samples one completion of the rendered prompt
 * with the model `load` gives (see InferenceService: one request at a time, model loaded once), ReadSpan reads a leaf
 * with its span reader, Describe says whether it has one. A bad request is INVALID_ARGUMENT naming the field, a model
 * that cannot be loaded (or a span read of one without a reader) is FAILED_PRECONDITION naming the folder, an
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
      throw this.refusal('Generate', fields, error);
    }
  }

  @GrpcMethod('Inference', 'Describe')
  async describe(): Promise<DescribeReplyMessage> {
    try {
      return { span_reader: (await this.service.describe()).spanReader };
    } catch (error) {
      throw this.refusal('Describe', {}, error);
    }
  }

  @GrpcMethod('Inference', 'ReadSpan')
  async readSpan(
    @Payload() request: ReadSpanRequestMessage,
    @GrpcCall() call: grpc.ServerUnaryCall<ReadSpanRequestMessage, ReadSpanReplyMessage>,
  ): Promise<ReadSpanReplyMessage> {
    const fields = { request_id: request.request_id, episode_id: request.episode_id, depth: request.depth };
    const cancelled = new AbortController();
    call.on('cancelled', () => cancelled.abort());
    const started = performance.now();
    try {
      const read = await this.service.readSpan(toReadParams(request), cancelled.signal);
      this.logger.debug('ReadSpan answered', {
        ...fields,
        prompt_tokens: read.promptTokens,
        answered: read.answered,
        ms: Math.round(performance.now() - started),
      });
      return {
        text: read.text,
        answered: read.answered,
        start: read.start,
        end: read.end,
        logprob: read.logprob,
        prompt_tokens: read.promptTokens,
      };
    } catch (error) {
      throw this.refusal('ReadSpan', fields, error);
    }
  }

  /** An InferenceError as its gRPC status; anything else is rethrown (INTERNAL). */
  private refusal(method: string, fields: Record<string, unknown>, error: unknown): unknown {
    if (!(error instanceof InferenceError)) return error;
    // A missing model is the operator's to fix; a bad request is the caller's and already in its reply.
    if (error.code === 'MODEL_UNAVAILABLE') {
      this.logger.warn(`${method} refused`, { ...fields, code: error.code, reason: error.message });
    }
    return new StatusError(inferenceStatus(error.code), error.message);
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
