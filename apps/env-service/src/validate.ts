import type { z } from 'zod';
import { validationError } from './errors';

/** Parses untrusted input with a zod schema; failure is a VALIDATION_ERROR whose issues are located under `where`. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw validationError(parsed.error, where);
  return parsed.data;
}
