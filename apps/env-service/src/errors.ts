import { status as GrpcStatus } from '@grpc/grpc-js';
import { FathomError, type EnvErrorCode } from '@fathom/contracts';
import type { z } from 'zod';

/**
 * The one error type of the env-service. Every failure a client can cause or observe is an EnvError with a code
 * from the shared taxonomy (`EnvErrorCode` in @fathom/contracts); the transports turn it into an HTTP status,
 * a gRPC status, a WebSocket error reply or a JSON-RPC error through the functions below, and nowhere else.
 */
export class EnvError extends FathomError<EnvErrorCode> {
  override readonly name = 'EnvError';
  constructor(
    code: EnvErrorCode,
    message: string,
    /** Structured detail for the client, e.g. the validation issues. */
    readonly details?: unknown,
  ) {
    super(code, message);
  }
}

/** One validation issue in the shape OpenEnv (FastAPI) reports them: location, message, type. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** A VALIDATION_ERROR from a failed zod parse; `where` prefixes each issue's location (e.g. "body"). */
export function validationError(error: z.ZodError, where: string): EnvError {
  const details: ValidationIssue[] = error.issues.map((i) => ({
    loc: [where, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: i.message,
    type: i.code,
  }));
  const summary = details.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ');
  return new EnvError('VALIDATION_ERROR', `invalid request: ${summary}`, details);
}

/** Any thrown value as an EnvError; an unknown error becomes INTERNAL with its message kept. */
export function toEnvError(error: unknown): EnvError {
  if (error instanceof EnvError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new EnvError('INTERNAL', `internal error: ${message}`);
}

export function httpStatusOf(code: EnvErrorCode): number {
  switch (code) {
    case 'INVALID_JSON':
    case 'UNKNOWN_TYPE':
      return 400;
    case 'VALIDATION_ERROR':
      return 422;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'EPISODE_NOT_FOUND':
    case 'TASK_NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
      return 404;
    case 'UNAUTHORIZED':
      return 401;
    case 'EPISODE_FORBIDDEN':
    case 'FORBIDDEN_ORIGIN':
      return 403;
    case 'MISDIRECTED_REQUEST':
      return 421;
    case 'NO_ACTIVE_EPISODE':
    case 'EPISODE_DONE':
    case 'EPISODE_EXISTS':
      return 409;
    case 'CAPACITY_REACHED':
      return 429;
    case 'EXECUTION_ERROR':
    case 'INTERNAL':
      return 500;
  }
}

export function grpcStatusOf(code: EnvErrorCode): GrpcStatus {
  switch (code) {
    case 'INVALID_JSON':
    case 'UNKNOWN_TYPE':
    case 'VALIDATION_ERROR':
      return GrpcStatus.INVALID_ARGUMENT;
    case 'PAYLOAD_TOO_LARGE':
    case 'CAPACITY_REACHED':
      return GrpcStatus.RESOURCE_EXHAUSTED;
    case 'EPISODE_NOT_FOUND':
    case 'TASK_NOT_FOUND':
      return GrpcStatus.NOT_FOUND;
    case 'ROUTE_NOT_FOUND':
      return GrpcStatus.UNIMPLEMENTED;
    case 'NO_ACTIVE_EPISODE':
    case 'EPISODE_DONE':
      return GrpcStatus.FAILED_PRECONDITION;
    case 'EPISODE_FORBIDDEN':
    case 'FORBIDDEN_ORIGIN':
    case 'MISDIRECTED_REQUEST':
      return GrpcStatus.PERMISSION_DENIED;
    case 'UNAUTHORIZED':
      return GrpcStatus.UNAUTHENTICATED;
    case 'EPISODE_EXISTS':
      return GrpcStatus.ALREADY_EXISTS;
    case 'EXECUTION_ERROR':
    case 'INTERNAL':
      return GrpcStatus.INTERNAL;
  }
}

/** OpenEnv's WebSocket error codes; our finer codes fold into them (the exact code travels as `reason`). */
export type WsErrorCode =
  'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED' | 'SESSION_ERROR';

export function wsCodeOf(code: EnvErrorCode): WsErrorCode {
  switch (code) {
    case 'INVALID_JSON':
    case 'UNKNOWN_TYPE':
    case 'VALIDATION_ERROR':
    case 'EXECUTION_ERROR':
    case 'CAPACITY_REACHED':
      return code;
    case 'ROUTE_NOT_FOUND':
      return 'UNKNOWN_TYPE';
    case 'PAYLOAD_TOO_LARGE':
    case 'TASK_NOT_FOUND':
      return 'VALIDATION_ERROR';
    case 'EPISODE_NOT_FOUND':
    case 'NO_ACTIVE_EPISODE':
    case 'EPISODE_DONE':
    case 'EPISODE_FORBIDDEN':
    case 'EPISODE_EXISTS':
    case 'UNAUTHORIZED':
    case 'FORBIDDEN_ORIGIN':
    case 'MISDIRECTED_REQUEST':
      return 'SESSION_ERROR';
    case 'INTERNAL':
      return 'EXECUTION_ERROR';
  }
}

/** JSON-RPC 2.0 error codes (spec reserved range) used by MCP; an unknown session is -32602, as in OpenEnv. */
export const JSONRPC = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  SERVER_ERROR: -32000,
} as const;

export function jsonRpcCodeOf(code: EnvErrorCode): number {
  switch (code) {
    case 'INVALID_JSON':
      return JSONRPC.PARSE_ERROR;
    case 'UNKNOWN_TYPE':
    case 'ROUTE_NOT_FOUND':
      return JSONRPC.METHOD_NOT_FOUND;
    case 'VALIDATION_ERROR':
    case 'PAYLOAD_TOO_LARGE':
    case 'EPISODE_NOT_FOUND':
      return JSONRPC.INVALID_PARAMS;
    case 'EXECUTION_ERROR':
    case 'CAPACITY_REACHED':
    case 'TASK_NOT_FOUND':
    case 'NO_ACTIVE_EPISODE':
    case 'EPISODE_DONE':
    case 'EPISODE_FORBIDDEN':
    case 'EPISODE_EXISTS':
    case 'UNAUTHORIZED':
    case 'FORBIDDEN_ORIGIN':
    case 'MISDIRECTED_REQUEST':
    case 'INTERNAL':
      return JSONRPC.SERVER_ERROR;
  }
}
