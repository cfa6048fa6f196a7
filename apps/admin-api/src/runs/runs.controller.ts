import { RunConfigSchema } from '@fathom/contracts';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { parseInput } from '../errors';
import { RUNS } from '../tokens';
import {
  BigIntIdSchema,
  EpisodesQuerySchema,
  RunListQuerySchema,
  SeriesQuerySchema,
  StepsQuerySchema,
} from './run.schemas';
import type { RunService } from './run.service';

/** Runs and their episodes. Controllers validate input and call one service method. */
@Controller()
export class RunsController {
  constructor(@Inject(RUNS) private readonly runs: RunService) {}

  @Post('runs')
  @HttpCode(201)
  create(@Body() body: unknown) {
    return this.runs.create(parseInput(RunConfigSchema, body, 'body'));
  }

  @Get('runs')
  list(@Query() query: unknown) {
    return this.runs.list(parseInput(RunListQuerySchema, query, 'query'));
  }

  @Get('runs/:id')
  get(@Param('id') id: string) {
    return this.runs.get(id);
  }

  @Get('runs/:id/steps')
  steps(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.steps(id, parseInput(StepsQuerySchema, query, 'query'));
  }

  @Get('runs/:id/series')
  series(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.series(id, parseInput(SeriesQuerySchema, query, 'query'));
  }

  @Get('runs/:id/episodes')
  episodes(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.episodes(id, parseInput(EpisodesQuerySchema, query, 'query'));
  }

  @Post('runs/:id/stop')
  @HttpCode(200)
  stop(@Param('id') id: string) {
    return this.runs.stop(id);
  }

  @Post('runs/:id/resume')
  @HttpCode(200)
  resume(@Param('id') id: string) {
    return this.runs.resume(id);
  }

  @Get('episodes/:id')
  episode(@Param('id') id: string) {
    return this.runs.episode(parseInput(BigIntIdSchema, id, 'path'));
  }
}
