import { status } from '@grpc/grpc-js';
import { ENV_ERROR_CODES } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EnvError, grpcStatusOf, httpStatusOf, jsonRpcCodeOf, toEnvError, validationError, wsCodeOf } from './errors';

/** Codes a client can cause with bad input; they must never map to a server error. */
const CLIENT_CODES = ENV_ERROR_CODES.filter((c) => !['EXECUTION_ERROR', 'INTERNAL'].includes(c));

describe('error taxonomy', () => {
  it.each(CLIENT_CODES)('%s is a 4xx and a client-side gRPC status', (code) => {
    expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
    expect(httpStatusOf(code)).toBeLessThan(500);
    expect([status.INTERNAL, status.UNKNOWN, status.UNAVAILABLE]).not.toContain(grpcStatusOf(code));
  });

  it('maps the OpenEnv cases to the statuses the API documents', () => {
    expect(httpStatusOf('VALIDATION_ERROR')).toBe(422);
    expect(httpStatusOf('PAYLOAD_TOO_LARGE')).toBe(413);
    expect(grpcStatusOf('VALIDATION_ERROR')).toBe(status.INVALID_ARGUMENT);
    expect(grpcStatusOf('EPISODE_NOT_FOUND')).toBe(status.NOT_FOUND);
    expect(grpcStatusOf('EPISODE_DONE')).toBe(status.FAILED_PRECONDITION);
    expect(grpcStatusOf('CAPACITY_REACHED')).toBe(status.RESOURCE_EXHAUSTED);
    expect(httpStatusOf('EPISODE_FORBIDDEN')).toBe(403);
    expect(httpStatusOf('EPISODE_EXISTS')).toBe(409);
    expect(grpcStatusOf('EPISODE_FORBIDDEN')).toBe(status.PERMISSION_DENIED);
    expect(grpcStatusOf('EPISODE_EXISTS')).toBe(status.ALREADY_EXISTS);
  });

  it('folds every code into an OpenEnv WebSocket code and a JSON-RPC code', () => {
    const ws = new Set([
      'INVALID_JSON',
      'UNKNOWN_TYPE',
      'VALIDATION_ERROR',
      'EXECUTION_ERROR',
      'CAPACITY_REACHED',
      'SESSION_ERROR',
    ]);
    for (const code of ENV_ERROR_CODES) {
      expect(ws.has(wsCodeOf(code))).toBe(true);
      expect(jsonRpcCodeOf(code)).toBeLessThanOrEqual(-32000);
    }
    expect(wsCodeOf('EPISODE_DONE')).toBe('SESSION_ERROR');
    expect(jsonRpcCodeOf('VALIDATION_ERROR')).toBe(-32602);
  });

  it('locates each zod issue and keeps an unknown error as INTERNAL with its message', () => {
    const parsed = z.object({ a: z.object({ b: z.number() }) }).safeParse({ a: { b: 'x' } });
    const error = validationError(parsed.error!, 'body');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details).toEqual([expect.objectContaining({ loc: ['body', 'a', 'b'], type: 'invalid_type' })]);
    expect(error.message).toContain('body.a.b');
    const internal = toEnvError(new TypeError('boom'));
    expect(internal).toBeInstanceOf(EnvError);
    expect(internal.code).toBe('INTERNAL');
    expect(internal.message).toContain('boom');
  });
});
