import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { parseInput, parsePathParam } from '../errors';
import { FailedQuerySchema, QueueNameParamsSchema } from './ops.schemas';
import { QueueService } from './queue.service';

/** The job queues: counts by state, and a queue's failed jobs. */
@Controller('queues')
export class QueuesController {
  constructor(@Inject(QueueService) private readonly queues: QueueService) {}

  @Get()
  queueStats() {
    return this.queues.stats();
  }

  @Get(':name/failed')
  failed(@Param('name') name: string, @Query() query: unknown) {
    return this.queues.failed(
      parsePathParam(QueueNameParamsSchema.shape.name, 'name', name),
      parseInput(FailedQuerySchema, query, 'query').limit,
    );
  }
}
