import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Logger } from '@fathom/observability';
import type { AdminApiConfig } from './config';
import { EvalService } from './evals/eval.service';
import { EvalsController } from './evals/evals.controller';
import { HttpErrorFilter } from './http/http-error.filter';
import { AdminMetrics } from './metrics';
import { HealthService } from './ops/health.service';
import { OpsController } from './ops/ops.controller';
import { QueueService } from './ops/queue.service';
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
  health: HealthService;
}

/** Every controller of the admin API (its documented operations are `ADMIN_OPERATIONS`). */
export const ADMIN_CONTROLLERS = [RunsController, EvalsController, OpsController];

@Module({})
export class AdminApiModule {
  static create(runtime: AdminRuntime): DynamicModule {
    return {
      module: AdminApiModule,
      controllers: ADMIN_CONTROLLERS,
      providers: [
        { provide: Logger, useValue: runtime.logger },
        { provide: AdminMetrics, useValue: runtime.metrics },
        { provide: RunService, useValue: runtime.runs },
        { provide: EvalService, useValue: runtime.evals },
        { provide: QueueService, useValue: runtime.queues },
        { provide: HealthService, useValue: runtime.health },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
