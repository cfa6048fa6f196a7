import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Logger } from '@fathom/observability';
import { OpsModule, type HealthCheck } from '@fathom/runtime';
import type { AdminApiConfig } from './config';
import { EvalService } from './evals/eval.service';
import { EvalsController } from './evals/evals.controller';
import { DocsController } from './http/docs.controller';
import { HttpErrorFilter } from './http/http-error.filter';
import { AdminMetrics } from './metrics';
import { QueueService } from './ops/queue.service';
import { QueuesController } from './ops/queues.controller';
import { RunService } from './runs/run.service';
import { RunsController } from './runs/runs.controller';

/** Services built before Nest starts (they wrap connections bootstrap owns and closes). */
export interface AdminRuntime {
  config: AdminApiConfig;
  logger: Logger;
  metrics: AdminMetrics;
  runs: RunService;
  evals: EvalService;
  queues: QueueService;
  /** Postgres and Redis, behind /health. */
  checks: HealthCheck[];
}

/** The admin API's own controllers; with `OpsModule`'s, its documented operations are `ADMIN_OPERATIONS`. */
export const ADMIN_CONTROLLERS = [RunsController, EvalsController, QueuesController, DocsController];

@Module({})
export class AdminApiModule {
  static create(runtime: AdminRuntime): DynamicModule {
    return {
      module: AdminApiModule,
      imports: [
        OpsModule.create({
          registry: runtime.metrics.registry,
          checks: runtime.checks,
          checkTimeoutMs: runtime.config.DEPENDENCY_TIMEOUT_MS,
          logger: runtime.logger,
        }),
      ],
      controllers: ADMIN_CONTROLLERS,
      providers: [
        { provide: Logger, useValue: runtime.logger },
        { provide: AdminMetrics, useValue: runtime.metrics },
        { provide: RunService, useValue: runtime.runs },
        { provide: EvalService, useValue: runtime.evals },
        { provide: QueueService, useValue: runtime.queues },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
