import { RunConfigSchema } from '@fathom/contracts';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { parseInput, parsePathParam } from '../errors';
import {
  EpisodeIdParamsSchema,
  EpisodesQuerySchema,
  RunIdParamsSchema,
  RunListQuerySchema,
  SeriesQuerySchema,
  StepsQuerySchema,
} from './run.schemas';
import { RunService } from './run.service';

const runId = (id: string) => parsePathParam(RunIdParamsSchema.shape.id, 'id', id);

/** Runs and their episodes. Controllers validate input and call one service method. */
@Controller()
export class RunsController {
  constructor(@Inject(RunService) private readonly runs: RunService) {}

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
    return this.runs.get(runId(id));
  }

  @Get('runs/:id/steps')
  steps(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.steps(runId(id), parseInput(StepsQuerySchema, query, 'query'));
  }

  @Get('runs/:id/series')
  series(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.series(runId(id), parseInput(SeriesQuerySchema, query, 'query'));
  }

  @Get('runs/:id/episodes')
  episodes(@Param('id') id: string, @Query() query: unknown) {
    return this.runs.episodes(runId(id), parseInput(EpisodesQuerySchema, query, 'query'));
  }

  @Post('runs/:id/stop')
  @HttpCode(200)
  stop(@Param('id') id: string) {
    return this.runs.stop(runId(id));
  }

  @Post('runs/:id/resume')
  @HttpCode(200)
  resume(@Param('id') id: string) {
    return this.runs.resume(runId(id));
  }

  @Get('episodes/:id')
  episode(@Param('id') id: string) {
    return this.runs.episode(parsePathParam(EpisodeIdParamsSchema.shape.id, 'id', id));
  }
}
