import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Logger } from '@fathom/observability';
import { OpsModule } from '@fathom/runtime';
import { EnvServiceConfig } from './config';
import { EpisodeService } from './episode/episode.service';
import { GrpcPort } from './grpc/grpc-port';
import { EnvGrpcController } from './grpc/env.grpc';
import { EnvController } from './http/env.controller';
import { HttpErrorFilter } from './http/http-error.filter';
import { McpController } from './mcp/mcp.controller';
import { EnvMetrics } from './metrics';
import { ChatCompletionService } from './openai/chat.service';
import { OpenAiController } from './openai/openai.controller';
import { WsGateway } from './ws/ws.gateway';

/** Instances built before Nest starts (they need async start-up: the sandbox pool, the dataset). */
export interface EnvRuntime {
  config: EnvServiceConfig;
  logger: Logger;
  metrics: EnvMetrics;
  episodes: EpisodeService;
  chat: ChatCompletionService;
  grpcPort: GrpcPort;
}

/** The env-service's own HTTP controllers; with `OpsModule`'s, its documented operations are `ENV_OPERATIONS`. */
export const ENV_CONTROLLERS = [EnvController, McpController, OpenAiController];

/**
 * The env-service's Nest module: HTTP, MCP and OpenAI-compatible controllers, the WebSocket gateway and the gRPC Env
 * controller.
 */
@Module({})
export class EnvServiceModule {
  static create(runtime: EnvRuntime): DynamicModule {
    return {
      module: EnvServiceModule,
      // Liveness only (OpenEnv's `{status: "healthy"}`): no Postgres or Redis, and the pool replaces a lost sandbox worker.
      imports: [OpsModule.create({ registry: runtime.metrics.registry, checks: [] })],
      controllers: [...ENV_CONTROLLERS, EnvGrpcController],
      providers: [
        { provide: EnvServiceConfig, useValue: runtime.config },
        { provide: Logger, useValue: runtime.logger },
        { provide: EnvMetrics, useValue: runtime.metrics },
        { provide: EpisodeService, useValue: runtime.episodes },
        { provide: ChatCompletionService, useValue: runtime.chat },
        { provide: GrpcPort, useValue: runtime.grpcPort },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        WsGateway,
      ],
    };
  }
}
