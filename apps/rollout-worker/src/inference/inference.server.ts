import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@fathom/observability';
import { bindServer, createServer, loadService, shutdownServer } from '@fathom/rpc';
import { InferenceError, InferenceErrorCode } from './inference.errors';
import type { InferenceModelLoader } from './inference.model';
import { InferenceService, type GenerateParams } from './inference.service';

function inferenceDefinition() {
  return loadService('inference.proto', 'fathom.inference.v1.Inference').service;
}
type GenerateDefinition = ReturnType<typeof inferenceDefinition>['Generate'];
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
 * Serves proto/inference.proto for the env-service's llm() sub-calls: Generate samples one completion of the
 * rendered prompt with the model `load` gives (see InferenceService: one request at a time, model loaded once).
 * A bad request is INVALID_ARGUMENT naming the field, a model that cannot be loaded is FAILED_PRECONDITION naming
 * the folder, an unexpected failure is INTERNAL and logged; the server keeps serving either way.
 */
export async function startInferenceServer(options: InferenceServerOptions): Promise<InferenceServerHandle> {
  const { logger } = options;
  const service = new InferenceService(options.load);
  const generate: grpc.handleUnaryCall<GenerateRequestMessage, GenerateReplyMessage> = (call, callback) => {
    const { request } = call;
    const fields = { request_id: request.request_id, episode_id: request.episode_id, depth: request.depth };
    const cancelled = new AbortController();
    call.on('cancelled', () => cancelled.abort());
    const started = performance.now();
    service.generate(toParams(request), cancelled.signal).then(
      (result) => {
        logger.debug('Generate answered', {
          ...fields,
          prompt_tokens: result.promptTokens,
          completion_tokens: result.completionTokens,
          finish_reason: result.finishReason,
          ms: Math.round(performance.now() - started),
        });
        callback(null, {
          text: result.text,
          prompt_tokens: result.promptTokens,
          completion_tokens: result.completionTokens,
          finish_reason: result.finishReason,
        });
      },
      (error: unknown) => {
        if (error instanceof InferenceError) {
          const refusal = { ...fields, code: error.code, reason: error.message };
          // A missing model is the operator's to fix; a bad request is the caller's and already in its reply.
          if (error.code === InferenceErrorCode.ModelUnavailable) logger.warn('Generate refused', refusal);
          else logger.debug('Generate refused', refusal);
          callback({ code: inferenceStatus(error.code), details: error.message });
        } else {
          logger.error('Generate failed', { ...fields, err: error });
          const message = error instanceof Error ? error.message : String(error);
          callback({ code: grpc.status.INTERNAL, details: `Generate: ${message}` });
        }
      },
    );
  };
  const server = createServer();
  server.addService(inferenceDefinition(), { Generate: generate });
  const port = await bindServer(server, options.host, options.port);
  logger.info('gRPC Inference listening', { port });
  return {
    port,
    close: async () => {
      await shutdownServer(server);
      await service.close();
    },
  };
}
