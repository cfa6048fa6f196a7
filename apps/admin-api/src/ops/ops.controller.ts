import { Controller, Get, Header, Inject, Param, Query, Res } from '@nestjs/common';
import { parseInput, parsePathParam } from '../errors';
import type { Response } from 'express';
import { docsPage } from '../http/docs.page';
import { adminOpenApiDocument } from '../http/openapi';
import { AdminMetrics } from '../metrics';
import { HealthService } from './health.service';
import { FailedQuerySchema, QueueNameParamsSchema } from './ops.schemas';
import { QueueService } from './queue.service';

/** Operations: queues, health, metrics, and the API's own documentation. */
@Controller()
export class OpsController {
  private readonly document = adminOpenApiDocument() as Parameters<typeof docsPage>[0];

  constructor(
    @Inject(QueueService) private readonly queues: QueueService,
    @Inject(HealthService) private readonly health: HealthService,
    @Inject(AdminMetrics) private readonly metrics: AdminMetrics,
  ) {}

  @Get('queues')
  queueStats() {
    return this.queues.stats();
  }

  @Get('queues/:name/failed')
  failed(@Param('name') name: string, @Query() query: unknown) {
    return this.queues.failed(
      parsePathParam(QueueNameParamsSchema.shape.name, 'name', name),
      parseInput(FailedQuerySchema, query, 'query').limit,
    );
  }

  /** 200 when Postgres and Redis answer, 503 (same body) when either does not. */
  @Get('health')
  async healthCheck(@Res() res: Response): Promise<void> {
    const report = await this.health.check();
    res.status(report.status === 'healthy' ? 200 : 503).json(report);
  }

  @Get('metrics')
  async scrape(@Res() res: Response): Promise<void> {
    res.setHeader('content-type', this.metrics.registry.contentType);
    res.send(await this.metrics.registry.metrics());
  }

  @Get('docs/openapi.json')
  openApi() {
    return this.document;
  }

  @Get('docs')
  @Header('content-type', 'text/html; charset=utf-8')
  docs(): string {
    return docsPage(this.document);
  }
}
