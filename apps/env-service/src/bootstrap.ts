import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, NestJsonLogger, type Logger } from '@fathom/observability';
import { DocCache, SandboxPool } from '@fathom/sandbox';
import { serveGrpc } from '@fathom/rpc';
import { onBodyParserError, useJsonBodyParser } from '@fathom/runtime';
import type { NextFunction, Request, Response } from 'express';
import type { AddressInfo } from 'node:net';
import { EnvServiceModule } from './app.module';
import type { EnvServiceConfig } from './config';
import { EpisodeService, type ReplPool } from './episode/episode.service';
import { TaskStore } from './episode/task.store';
import { EnvError, JSONRPC } from './errors';
import { bodyBudget } from './http/body-budget';
import { sendEnvError } from './http/http-error.filter';
import { requestGuard } from './http/request-guard';
import { GrpcInferenceClient } from './inference/inference.client';
import { EnvMetrics } from './metrics';
import { bearerAuth } from './openai/bearer-auth';
import { ChatCompletionService } from './openai/chat.service';
import { GrpcPort } from './grpc/grpc-port';
import { sendOpenAiError, toOpenAiError } from './openai/openai.errors';

const CHAT_COMPLETIONS_PATH = '/v1/chat/completions';

/** A running env-service. */
export interface RunningEnvService {
  app: NestExpressApplication;
  episodes: EpisodeService;
  metrics: EnvMetrics;
  /** Bound ports (useful when the config asked for port 0). */
  httpPort: number;
  grpcPort: number;
  /** Stops accepting requests, closes every episode, the sandbox pool and the inference client. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where log lines go (default stdout). */
  logWrite?: (line: string) => void;
}

/**
 * Starts the env-service from a validated config: the sandbox pool, the dataset, the inference client, then the
 * Nest app (HTTP + WebSocket on HTTP_PORT, gRPC on GRPC_PORT).
 */
export async function startEnvService(
  config: EnvServiceConfig,
  options: StartOptions = {},
): Promise<RunningEnvService> {
  const logger = createLogger({ service: 'env-service', level: config.LOG_LEVEL, write: options.logWrite });
  const metrics = new EnvMetrics();
  const documents = new DocCache(Infinity, config.DOCUMENT_CACHE_MB * 1024 * 1024);
  const tasks = await TaskStore.load(config.DATASET_PATH, documents, (outcome) => metrics.documents.inc({ outcome }));
  const pool: ReplPool = await SandboxPool.start({
    workers: config.SANDBOX_WORKERS,
    lowPriorityWorkers: config.SANDBOX_LOW_PRIORITY_WORKERS,
    // The service reaps idle episodes itself; the pool's reaper is only a backstop, so it waits longer.
    idleTimeoutMs: config.IDLE_TIMEOUT_S * 2000,
    defaults: {
      memoryMb: config.SANDBOX_MEMORY_MB,
      stepCpuMs: config.STEP_CPU_MS,
      stepWallMs: config.STEP_TIMEOUT_MS,
      episodeCpuMs: config.EPISODE_CPU_MS,
      maxSteps: config.MAX_STEPS,
      maxOutputChars: config.OUTPUT_CHARS,
      maxLlmCalls: config.MAX_LLM_CALLS,
      maxDepth: config.MAX_DEPTH,
      subcallTimeoutMs: config.INFERENCE_TIMEOUT_MS,
    },
  });
  metrics.observePool(() => pool.stats());
  const inference = new GrpcInferenceClient(config.INFERENCE_ADDRESS, config.INFERENCE_TIMEOUT_MS, config.GRPC_TOKEN);
  const episodes = new EpisodeService({ config, pool, tasks, inference, metrics, logger });
  const chat = new ChatCompletionService({ config, pool, inference, capacity: episodes, logger });
  const grpcPort = new GrpcPort();

  const app = await NestFactory.create<NestExpressApplication>(
    EnvServiceModule.create({ config, logger, metrics, episodes, chat, grpcPort }),
    { bodyParser: false, logger: new NestJsonLogger(logger) },
  );
  const guard = requestGuard(config);
  app.use((req: Request, res: Response, next: NextFunction) => {
    const refusal = guard(req, req.path);
    if (refusal === null) return next();
    logger.debug('request refused', { path: req.path, code: refusal.code });
    sendEnvError(res, refusal, metrics);
  });
  app.use('/v1', bearerAuth(config.API_TOKEN));
  // A chat completion's body carries its document JSON-escaped or base64-encoded: twice MAX_DOCUMENT_BYTES leaves
  // room for either, so a document over its limit meets the document's 413, which names it, not the parser's.
  const chatBodyBytes = Math.max(config.MAX_BODY_BYTES, 2 * config.MAX_DOCUMENT_BYTES);
  const refuse = refuseBody(metrics, logger);
  app.use(bodyBudget(config.MAX_BODY_BYTES_IN_FLIGHT, chatBodyBytes, refuse));
  useJsonBodyParser(app, {
    limit: chatBodyBytes,
    type: (req: { url?: string }) => req.url?.split('?')[0] === CHAT_COMPLETIONS_PATH,
  });
  useJsonBodyParser(app, { limit: config.MAX_BODY_BYTES, type: () => true });
  app.use(
    onBodyParserError((failure, req, res) => {
      const code = (
        {
          too_large: 'PAYLOAD_TOO_LARGE',
          invalid_utf8: 'INVALID_JSON',
          invalid_json: 'INVALID_JSON',
          unreadable: 'VALIDATION_ERROR',
        } as const
      )[failure.kind];
      refuse(new EnvError(code, failure.message), req, res);
    }),
  );
  try {
    grpcPort.port = await serveGrpc(app, {
      host: config.GRPC_HOST,
      port: config.GRPC_PORT,
      token: config.GRPC_TOKEN,
      services: [{ proto: 'env.proto', name: 'fathom.env.v1.Env' }],
      logger,
      serverOptions: {
        'grpc.max_receive_message_length': config.MAX_BODY_BYTES,
        'grpc.max_send_message_length': config.MAX_BODY_BYTES,
      },
    });
    await app.listen(config.HTTP_PORT, config.HOST);
  } catch (error) {
    episodes.shutdown();
    await Promise.allSettled([app.close(), pool.close()]);
    inference.close();
    throw error;
  }
  const httpPort = (app.getHttpServer().address() as AddressInfo).port;
  logger.info('env-service listening', { http_port: httpPort, grpc_port: grpcPort.port, tasks: tasks.size });

  let closed: Promise<void> | undefined;
  return {
    app,
    episodes,
    metrics,
    httpPort,
    grpcPort: grpcPort.port,
    close: () =>
      (closed ??= (async () => {
        await app.close();
        episodes.shutdown();
        await pool.close();
        inference.close();
      })()),
  };
}

/**
 * A request refused for its body (bad JSON, too large, or over the bodies held at once, `bodyBudget`), as a taxonomy
 * error; on /mcp as a JSON-RPC error with HTTP 200, as OpenEnv answers, except a limit of this service (a body over
 * MAX_BODY_BYTES: 413; over MAX_BODY_BYTES_IN_FLIGHT: 429); on /v1 in OpenAI's error shape.
 */
function refuseBody(metrics: EnvMetrics, logger: Logger) {
  return (error: EnvError, req: Request, res: Response): void => {
    logger.debug('request body rejected', { path: req.path, code: error.code });
    if (req.path.startsWith('/v1/')) {
      metrics.errors.inc({ code: error.code });
      sendOpenAiError(res, toOpenAiError(error));
      return;
    }
    if (req.path === '/mcp') {
      metrics.errors.inc({ code: error.code });
      const rpcCode = error.code === 'INVALID_JSON' ? JSONRPC.PARSE_ERROR : JSONRPC.INVALID_REQUEST;
      const status = error.code === 'PAYLOAD_TOO_LARGE' ? 413 : error.code === 'CAPACITY_REACHED' ? 429 : 200;
      res.status(status).json({ jsonrpc: '2.0', id: null, error: { code: rpcCode, message: error.message } });
      return;
    }
    sendEnvError(res, error, metrics);
  };
}
