import * as grpc from '@grpc/grpc-js';
import { Catch, Inject, type ArgumentsHost, type RpcExceptionFilter } from '@nestjs/common';
import { Logger } from '@fathom/observability';
import { throwError, type Observable } from 'rxjs';
import { statusName, StatusError } from '../errors';

/**
 * The exception filter of FATHOM's gRPC controllers: a `StatusError` is answered with its status and message (logged at
 * debug: the refusal is the caller's, and already in its reply); anything else is INTERNAL and logged as an error.
 */
@Catch()
export class StatusErrorFilter implements RpcExceptionFilter {
  constructor(@Inject(Logger) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): Observable<never> {
    const method = methodOf(host);
    if (exception instanceof StatusError) {
      this.logger.debug('gRPC call refused', { method, code: statusName(exception.code), reason: exception.message });
      return throwError(() => ({ code: exception.code, details: exception.message }));
    }
    this.logger.error('gRPC call failed', { method, err: exception });
    const message = exception instanceof Error ? exception.message : String(exception);
    return throwError(() => ({ code: grpc.status.INTERNAL, details: `${method}: ${message}` }));
  }
}

/** The method path of the call a handler was given (`/fathom.policy.v1.Policy/GetLatest`). */
export function methodOf(host: ArgumentsHost): string {
  const call = host.getArgs().find((arg): arg is { getPath(): string } => typeof arg?.getPath === 'function');
  return call?.getPath() ?? 'unknown method';
}
