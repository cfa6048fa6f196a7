import { status, type ServiceError } from '@grpc/grpc-js';

/** The name of a gRPC status code ("NOT_FOUND"), for messages and logs. */
export function statusName(code: status): string {
  return status[code] ?? `STATUS_${code}`;
}

/**
 * An error of a FATHOM gRPC client call: the gRPC status code, and a message that names the call and what it
 * was about (run and version for weights), e.g. `GetWeights run "r1" version 3: NOT_FOUND: unknown version`.
 * Client-side checks of a transfer (size, SHA-256) fail with DATA_LOSS.
 */
export class RpcError extends Error {
  constructor(
    readonly code: status,
    readonly context: string,
    readonly details: string,
  ) {
    super(`${context}: ${statusName(code)}: ${details}`);
    this.name = 'RpcError';
  }
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === 'number';
}

/** Turns what a gRPC call rejected with into an RpcError for `context`; anything else is UNKNOWN. */
export function toRpcError(error: unknown, context: string): RpcError {
  if (error instanceof RpcError) return error;
  if (isServiceError(error)) return new RpcError(error.code, context, error.details || error.message);
  return new RpcError(status.UNKNOWN, context, error instanceof Error ? error.message : String(error));
}

/** A status to answer a server call with: `callback(serverError(...))` or `call.emit('error', ...)`. */
export function serverError(code: status, details: string): Partial<ServiceError> {
  return { code, details };
}

/** A failure inside a server handler that becomes the call's gRPC status, with its message as the details. */
export class StatusError extends Error {
  constructor(
    readonly code: status,
    message: string,
  ) {
    super(message);
    this.name = 'StatusError';
  }
}
