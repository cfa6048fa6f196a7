import 'reflect-metadata';
import { Controller, Get, Inject, Module, Res, type DynamicModule } from '@nestjs/common';
import type { HealthReport, QueueName } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { PrismaClient } from '@fathom/persistence';
import type { JobTransport } from '@fathom/queue';
import type { Response } from 'express';
import { Registry } from 'prom-client';

/** A dependency a service needs (Postgres, Redis, the learner): healthy when `check` resolves. */
export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

/** What `/health` says of a check that failed: its error text (a driver's message, hosts, queries) is for the log. */
export const CHECK_UNAVAILABLE = 'unavailable';

/**
 * The checks behind a service's `/health`, each given `timeoutMs` to answer. `/health` is public, so a failed check
 * is reported as "unavailable" (or as timed out) and its error goes to `logger` only.
 */
export class HealthChecks {
  constructor(
    readonly checks: readonly HealthCheck[],
    readonly timeoutMs = 2000,
    private readonly logger?: Logger,
  ) {}

  /** Every check at once: "healthy" when each answered, "unhealthy" naming each check that failed otherwise. */
  async report(): Promise<HealthReport> {
    if (this.checks.length === 0) return { status: 'healthy' };
    const results = await Promise.all(
      this.checks.map(async (c) => {
        let timer: NodeJS.Timeout | undefined;
        const deadline = new Error(`no answer within ${this.timeoutMs} ms`);
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(deadline), this.timeoutMs);
        });
        try {
          await Promise.race([c.check(), timeout]);
          return [c.name, 'ok'] as const;
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          this.logger?.warn('health check failed', { check: c.name, reason });
          return [c.name, error === deadline ? deadline.message : CHECK_UNAVAILABLE] as const;
        } finally {
          clearTimeout(timer);
        }
      }),
    );
    const healthy = results.every(([, r]) => r === 'ok');
    return { status: healthy ? 'healthy' : 'unhealthy', checks: Object.fromEntries(results) };
  }
}

/** Redis (a count of `queue`) and Postgres (`SELECT 1`): the checks of a service that uses both. */
export function dependencyChecks(deps: {
  transport: JobTransport;
  prisma: PrismaClient;
  queue: QueueName;
}): HealthCheck[] {
  return [
    { name: 'redis', check: () => deps.transport.counts(deps.queue).then(() => undefined) },
    { name: 'postgres', check: async () => void (await deps.prisma.$queryRaw`SELECT 1`) },
  ];
}

/** `GET /health` (200, or 503 naming the failing check) and `GET /metrics`, the same in every service. */
@Controller()
export class OpsController {
  constructor(
    @Inject(HealthChecks) private readonly health: HealthChecks,
    @Inject(Registry) private readonly registry: Registry,
  ) {}

  @Get('health')
  async healthReport(@Res() res: Response): Promise<void> {
    const report = await this.health.report();
    res.status(report.status === 'healthy' ? 200 : 503).json(report);
  }

  @Get('metrics')
  async metrics(@Res() res: Response): Promise<void> {
    res.setHeader('content-type', this.registry.contentType);
    res.send(await this.registry.metrics());
  }
}

export interface OpsOptions {
  registry: Registry;
  checks: readonly HealthCheck[];
  /** How long one check may take before it counts as failed. Default 2000. */
  checkTimeoutMs?: number;
  /** Where a failed check's error is logged (it is not in the `/health` reply). */
  logger?: Logger;
}

/** The operations endpoints of a service, imported by its Nest module (documented as `OPS_OPERATIONS`). */
@Module({})
export class OpsModule {
  static create(options: OpsOptions): DynamicModule {
    return {
      module: OpsModule,
      controllers: [OpsController],
      providers: [
        { provide: Registry, useValue: options.registry },
        { provide: HealthChecks, useValue: new HealthChecks(options.checks, options.checkTimeoutMs, options.logger) },
      ],
    };
  }
}
