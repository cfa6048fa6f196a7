import { FathomError, INVALID_TEXT, isInvalidTextIssue } from '@fathom/contracts';
import type { z } from 'zod';

/** Every way an admin API request can fail, as the client sees it. */
export const ADMIN_ERROR_CODES = [
  'INVALID_JSON',
  'INVALID_TEXT',
  'UNSUPPORTED_MEDIA_TYPE',
  'CROSS_ORIGIN',
  /** Without a token, a request addressed (`Host`) to a name that is not loopback nor in ADMIN_ALLOWED_HOSTS. */
  'MISDIRECTED_REQUEST',
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
export class AdminError extends FathomError<AdminErrorCode> {
  override readonly name = 'AdminError';
  constructor(
    code: AdminErrorCode,
    message: string,
    /** Structured detail for the client, e.g. the validation issues. */
    readonly details?: unknown,
  ) {
    super(code, message);
  }
}

export function httpStatusOf(code: AdminErrorCode): number {
  switch (code) {
    case 'INVALID_JSON':
    case 'INVALID_TEXT':
      return 400;
    case 'UNAUTHORIZED':
      return 401;
    case 'CROSS_ORIGIN':
      return 403;
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
    case 'UNSUPPORTED_MEDIA_TYPE':
      return 415;
    case 'MISDIRECTED_REQUEST':
      return 421;
    case 'VALIDATION_ERROR':
      return 422;
    case 'DEPENDENCY_UNAVAILABLE':
      return 503;
    case 'INTERNAL':
      return 500;
  }
}

/**
 * The error of a failed zod parse; `where` ("body", "query", "path") and then `field` (a path parameter's name)
 * start each issue's path. Text that cannot be stored (a NUL, a lone surrogate: libs/contracts text.ts) makes the
 * request malformed, INVALID_TEXT (400, issue code "invalid_text"); any other issue is a VALIDATION_ERROR (422).
 */
export function validationError(error: z.ZodError, where: string, field: string[] = []): AdminError {
  const issues: ValidationIssue[] = error.issues.map((i) => ({
    path: [where, ...field, ...i.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    message: i.message,
    code: isInvalidTextIssue(i) ? INVALID_TEXT : i.code,
  }));
  const summary = issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
  const code = error.issues.some(isInvalidTextIssue) ? 'INVALID_TEXT' : 'VALIDATION_ERROR';
  return new AdminError(code, `invalid ${where}: ${summary}`, issues);
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

/** Parses untrusted input with a zod schema; failure is a validation error located under `where`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}

/** Parses the path parameter `name`; a failure's issues and message name it (`path.id: …`). */
export function parsePathParam<S extends z.ZodType>(schema: S, name: string, value: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw validationError(parsed.error, 'path', [name]);
}
