import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { Logger } from '@fathom/observability';
import type { EnvServiceConfig } from './config';
import type { EpisodeService } from './episode/episode.service';
import { GRPC_PORT_REF, type GrpcPortRef } from './grpc/grpc-port';
import { EnvGrpcServer } from './grpc/env.grpc';
import { EnvController } from './http/env.controller';
import { HttpErrorFilter } from './http/http-error.filter';
import { McpController } from './mcp/mcp.controller';
import type { EnvMetrics } from './metrics';
import type { ChatCompletionService } from './openai/chat.service';
import { OpenAiController } from './openai/openai.controller';
import { CHAT, CONFIG, EPISODES, LOGGER, METRICS } from './tokens';
import { WsGateway } from './ws/ws.gateway';

/** Instances built before Nest starts (they need async start-up: the sandbox pool, the dataset). */
export interface EnvRuntime {
  config: EnvServiceConfig;
  logger: Logger;
  metrics: EnvMetrics;
  episodes: EpisodeService;
  chat: ChatCompletionService;
  grpcPort: GrpcPortRef;
}

/** Every HTTP controller of the env-service (its documented operations are `ENV_OPERATIONS`). */
export const ENV_CONTROLLERS = [EnvController, McpController, OpenAiController];

/** The env-service's Nest module: HTTP, MCP and OpenAI-compatible controllers, the WebSocket gateway and the gRPC server. */
@Module({})
export class EnvServiceModule {
  static create(runtime: EnvRuntime): DynamicModule {
    return {
      module: EnvServiceModule,
      controllers: ENV_CONTROLLERS,
      providers: [
        { provide: CONFIG, useValue: runtime.config },
        { provide: LOGGER, useValue: runtime.logger },
        { provide: METRICS, useValue: runtime.metrics },
        { provide: EPISODES, useValue: runtime.episodes },
        { provide: CHAT, useValue: runtime.chat },
        { provide: GRPC_PORT_REF, useValue: runtime.grpcPort },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
        WsGateway,
        EnvGrpcServer,
      ],
    };
  }
}
