import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { Logger } from '@fathom/observability';
import type { AdminApiConfig } from './config';
import type { EvalService } from './evals/eval.service';
import { EvalsController } from './evals/evals.controller';
import { HttpErrorFilter } from './http/http-error.filter';
import type { AdminMetrics } from './metrics';
import type { HealthService } from './ops/health.service';
import { OpsController } from './ops/ops.controller';
import type { QueueService } from './ops/queue.service';
import type { RunService } from './runs/run.service';
import { RunsController } from './runs/runs.controller';
import { CONFIG, EVALS, HEALTH, LOGGER, METRICS, QUEUES, RUNS } from './tokens';

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
        { provide: CONFIG, useValue: runtime.config },
        { provide: LOGGER, useValue: runtime.logger },
        { provide: METRICS, useValue: runtime.metrics },
        { provide: RUNS, useValue: runtime.runs },
        { provide: EVALS, useValue: runtime.evals },
        { provide: QUEUES, useValue: runtime.queues },
        { provide: HEALTH, useValue: runtime.health },
        { provide: APP_FILTER, useClass: HttpErrorFilter },
      ],
    };
  }
}
