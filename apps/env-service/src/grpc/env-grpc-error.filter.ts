import { Catch, Inject, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { Logger } from '@fathom/observability';
import { methodOf } from '@fathom/rpc';
import { throwError, type Observable } from 'rxjs';
import { grpcStatusOf, toEnvError } from '../errors';
import { EnvMetrics } from '../metrics';

/** Answers a failed Env call with its EnvError's gRPC status and message, counted by code; INTERNAL ones are logged. */
@Catch()
export class EnvGrpcErrorFilter implements RpcExceptionFilter {
  constructor(
    @Inject(EnvMetrics) private readonly metrics: EnvMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const envError = toEnvError(exception);
    if (envError.code === 'INTERNAL') {
      this.logger.error('unhandled error in a gRPC handler', { method: methodOf(host), err: exception });
    }
    this.metrics.errors.inc({ code: envError.code });
    return throwError(() => ({ code: grpcStatusOf(envError.code), details: envError.message }));
  }
}
