import type { z } from 'zod';

/** Every way an admin API request can fail, as the client sees it. */
export const ADMIN_ERROR_CODES = [
  'INVALID_JSON',
  'VALIDATION_ERROR',
  'PAYLOAD_TOO_LARGE',
  'UNAUTHORIZED',
  'RUN_NOT_FOUND',
  'EPISODE_NOT_FOUND',
  'EVAL_NOT_FOUND',
  'QUEUE_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'INVALID_TRANSITION',
  'DEPENDENCY_UNAVAILABLE',
  'INTERNAL',
] as const;
export type AdminErrorCode = (typeof ADMIN_ERROR_CODES)[number];

/** One validation issue: where (e.g. ["body", "grpo", "beta"]), what is wrong, and zod's issue code. */
export interface ValidationIssue {
  path: (string | number)[];
  message: string;
  code: string;
}

/**
 * The one error type of the admin API. Services throw it; the HTTP error filter turns it into a response through
 * `httpStatusOf`, and nothing else decides a status code.
 */
export class AdminError extends Error {
  constructor(
    readonly code: AdminErrorCode,
    message: string,
    /** Structured detail for the client, e.g. the validation issues. */
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

export function httpStatusOf(code: AdminErrorCode): number {
  switch (code) {
    case 'INVALID_JSON':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'RUN_NOT_FOUND':
    case 'EPISODE_NOT_FOUND':
    case 'EVAL_NOT_FOUND':
    case 'QUEUE_NOT_FOUND':
    case 'ROUTE_NOT_FOUND':
      return 404;
    case 'INVALID_TRANSITION':
      return 409;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'VALIDATION_ERROR':
      return 422;
    case 'DEPENDENCY_UNAVAILABLE':
      return 503;
    case 'INTERNAL':
      return 500;
  }
}

/** A VALIDATION_ERROR from a failed zod parse; `where` ("body", "query", "path") starts each issue's path. */
export function validationError(error: z.ZodError, where: string): AdminError {
  const issues: ValidationIssue[] = error.issues.map((i) => ({
    path: [where, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    message: i.message,
    code: i.code,
  }));
  const summary = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  return new AdminError('VALIDATION_ERROR', `invalid ${where}: ${summary}`, issues);
}

/** Prisma error codes that mean Postgres is unreachable or overloaded, not that the request was wrong. */
const PRISMA_UNAVAILABLE = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);

/**
 * Any thrown value as an AdminError. Postgres being unreachable is DEPENDENCY_UNAVAILABLE; anything else unknown
 * is INTERNAL, whose message does not repeat the internal error (the filter logs it in full).
 */
export function toAdminError(error: unknown): AdminError {
  if (error instanceof AdminError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && PRISMA_UNAVAILABLE.has(code)) {
    return new AdminError('DEPENDENCY_UNAVAILABLE', `Postgres is unavailable (${code})`);
  }
  return new AdminError('INTERNAL', 'internal error; the admin-api log has the details');
}

/** Parses untrusted input with a zod schema; failure is a VALIDATION_ERROR located under `where`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}
