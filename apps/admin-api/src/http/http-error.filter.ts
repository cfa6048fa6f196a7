import { ArgumentsHost, Catch, HttpException, Inject, type ExceptionFilter } from '@nestjs/common';
import { Logger } from '@fathom/observability';
import type { Request, Response } from 'express';
import { AdminError, httpStatusOf, toAdminError, type AdminErrorCode } from '../errors';
import { AdminMetrics } from '../metrics';
import { undecodablePathError } from './path-params';

/** The JSON body of every error response. */
export interface HttpErrorBody {
  code: AdminErrorCode;
  message: string;
  /** Validation issues, the current status of a run, …; absent when the message says it all. */
  details?: unknown;
}

/** Writes an AdminError as the HTTP response (the filter, the auth and body-parser middleware all use this). */
export function sendAdminError(res: Response, error: AdminError, metrics: AdminMetrics): void {
  metrics.errors.inc({ code: error.code });
  if (error.code === 'UNAUTHORIZED') res.setHeader('WWW-Authenticate', 'Bearer');
  const body: HttpErrorBody = { code: error.code, message: error.message, details: error.details };
  res.status(httpStatusOf(error.code)).json(body);
}

/** Turns anything a controller throws into the error taxonomy; only a genuine bug is a 500, and it is logged. */
@Catch()
export class HttpErrorFilter implements ExceptionFilter {
  constructor(
    @Inject(AdminMetrics) private readonly metrics: AdminMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const res = http.getResponse<Response>();
    const error =
      exception instanceof HttpException && exception.getStatus() === 404
        ? new AdminError('ROUTE_NOT_FOUND', `no route ${exception.message.replace(/^Cannot /, '')}`)
        : exception instanceof HttpException && exception.cause instanceof URIError
          ? undecodablePathError(http.getRequest<Request>().path)
          : toAdminError(exception);
    if (error.code === 'INTERNAL') this.logger.error('unhandled error in an HTTP handler', { err: exception });
    if (error.code === 'DEPENDENCY_UNAVAILABLE') this.logger.warn('dependency unavailable', { reason: error.message });
    sendAdminError(res, error, this.metrics);
  }
}
