import { ArgumentsHost, Catch, HttpException, Inject, type ExceptionFilter } from '@nestjs/common';
import type { EnvErrorCode } from '@fathom/contracts';
import { Logger } from '@fathom/observability';
import type { Response } from 'express';
import { EnvError, httpStatusOf, toEnvError } from '../errors';
import { EnvMetrics } from '../metrics';

/** The JSON body of every HTTP error: OpenEnv's `detail` plus our code and a one-line message. */
export interface HttpErrorBody {
  code: EnvErrorCode;
  message: string;
  detail: unknown;
}

export function httpErrorBody(error: EnvError): HttpErrorBody {
  return { code: error.code, message: error.message, detail: error.details ?? error.message };
}

/** Writes an EnvError as an HTTP response (the filter, the request guard and the body-parser middleware use this). */
export function sendEnvError(res: Response, error: EnvError, metrics: EnvMetrics): void {
  metrics.errors.inc({ code: error.code });
  if (error.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
  res.status(httpStatusOf(error.code)).json(httpErrorBody(error));
}

/** Turns anything a controller throws into the HTTP error taxonomy; only a genuine bug is a 500, and it is logged. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    @Inject(EnvMetrics) private readonly metrics: EnvMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      const code: EnvErrorCode =
        status === 404 ? 'ROUTE_NOT_FOUND' : status === 413 ? 'PAYLOAD_TOO_LARGE' : 'VALIDATION_ERROR';
      const message = status === 404 ? `no route ${exception.message.replace(/^Cannot /, '')}` : exception.message;
      this.metrics.errors.inc({ code });
      res.status(status).json({ code, message, detail: message });
      return;
    }
    const error = toEnvError(exception);
    if (error.code === 'INTERNAL') this.logger.error('unhandled error in an HTTP handler', { err: exception });
    sendEnvError(res, error, this.metrics);
  }
}
