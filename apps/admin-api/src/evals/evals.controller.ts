import { Body, Controller, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { parseInput, parsePathParam } from '../errors';
import { EvalIdParamsSchema, EvalRequestSchema } from './eval.schemas';
import { EvalService } from './eval.service';

@Controller()
export class EvalsController {
  constructor(@Inject(EvalService) private readonly evals: EvalService) {}

  /** 202: the eval is queued, not done. */
  @Post('evals')
  @HttpCode(202)
  request(@Body() body: unknown) {
    return this.evals.request(parseInput(EvalRequestSchema, body, 'body'));
  }

  @Get('evals')
  list() {
    return this.evals.list();
  }

  @Get('evals/:id')
  get(@Param('id') id: string) {
    return this.evals.get(parsePathParam(EvalIdParamsSchema.shape.id, 'id', id));
  }
}
