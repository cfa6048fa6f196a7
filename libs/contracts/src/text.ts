import { z } from 'zod';

/**
 * Text that crosses a service edge (REST, WebSocket, gRPC, job payloads) and may reach Postgres. Postgres `text`
 * cannot hold U+0000 and `jsonb` refuses both `\u0000` and a lone UTF-16 surrogate (it is not Unicode, so it has no
 * UTF-8 encoding), so such strings are refused at the edge with an issue that names the field, rather than failing
 * deep inside a query. Persisted model output, which must be stored whatever the model wrote, goes through
 * `withoutNul` in libs/persistence instead.
 */

/** Marks a zod issue as "not storable text" so that an edge can answer it as a malformed request (HTTP 400). */
export const INVALID_TEXT = 'invalid_text';

/** Length limits (UTF-16 code units, as zod and JavaScript count) of each kind of edge text. */
export const TEXT_LIMITS = {
  /** Ids: run, episode, eval, session ids given in a path, a query or a message. */
  id: 256,
  /** Human-readable names shown in lists. */
  name: 200,
  /** File paths and checkpoint folders. */
  path: 1024,
  /** Other free text a client sends (questions, reasons). */
  text: 64 * 1024,
} as const;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (UTF-16 code units). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` cannot be stored as Postgres text, or null when it can. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (LONE_SURROGATE.test(value)) return 'contains a lone UTF-16 surrogate (not valid Unicode, so not valid UTF-8)';
  return null;
}

/** Whether a zod issue came from `storableText` (NUL or lone surrogate), as opposed to a length or format check. */
export function isInvalidTextIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'custom' && (issue.params as { kind?: unknown } | undefined)?.kind === INVALID_TEXT;
}

/**
 * A string schema for edge text: well-formed Unicode without NUL, at most `max` code units and at least `min`
 * (default 1). Further refinements (`.regex`, `.trim`) chain after it.
 */
export function storableText(max: number, min = 1) {
  return z
    .string()
    .superRefine((value, ctx) => {
      const problem = textProblem(value);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: problem, params: { kind: INVALID_TEXT } });
    })
    .min(min)
    .max(max);
}

/** An id a client names (path parameter, query, message field): 1-256 characters of storable text. */
export const TextIdSchema = storableText(TEXT_LIMITS.id);
/** A display name: storable, 1-200 characters after trimming. */
export const TextNameSchema = storableText(TEXT_LIMITS.name).trim().min(1);
/** A file path or checkpoint folder: storable, 1-1024 characters. */
export const TextPathSchema = storableText(TEXT_LIMITS.path);
/** Free text: storable, 0-65536 characters. */
export const FreeTextSchema = storableText(TEXT_LIMITS.text, 0);

/**
 * `text` escaped so that it matches itself inside a RegExp: for `new RegExp(...)` and for a `/…/` literal in
 * generated code alike (a `/` is escaped too, which a RegExp source reads as `/`).
 */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
