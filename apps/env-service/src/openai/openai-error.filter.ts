import { ArgumentsHost, Catch, Inject, type ExceptionFilter } from '@nestjs/common';
import { Logger } from '@fathom/observability';
import type { Response } from 'express';
import { EnvMetrics } from '../metrics';
import { sendOpenAiError, toOpenAiError } from './openai.errors';

/** The /v1 routes' filter: every failure in OpenAI's error shape; only a genuine bug is a 500, and it is logged. */
@Catch()
export class OpenAiErrorFilter implements ExceptionFilter {
  constructor(
    @Inject(EnvMetrics) private readonly metrics: EnvMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    const error = toOpenAiError(exception);
    if (error.code === 'INTERNAL_ERROR') this.logger.error('unhandled error in a /v1 handler', { err: exception });
    this.metrics.errors.inc({ code: error.code });
    sendOpenAiError(res, error);
  }
}
