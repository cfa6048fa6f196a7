import { readFile } from 'node:fs/promises';
import { applySetOverrides, ConfigOverrideError } from '@fathom/contracts';
import type { z } from 'zod';

/**
 * A config file's top-level JSON object. A file that cannot be read, is not JSON or holds anything but an object
 * fails with `fail(message)`, the message naming the file, so each loader keeps its own error type.
 */
export async function readJsonObject(file: string, fail: (message: string) => Error): Promise<Record<string, unknown>> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw fail(`${file}: ${(error as Error).message}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw fail(`${file}: the config must be a JSON object`);
  return raw as Record<string, unknown>;
}

/**
 * A config file's JSON object with `key=value` overrides (`--set`, and the flags that stand for one key) applied
 * through `applySetOverrides` over `schema`, for `schema` to parse: a refused override fails with `fail(message)`
 * too, the message naming the file and the key ("override <key>: …").
 */
export function withOverrides(
  file: string,
  schema: z.ZodType,
  raw: Record<string, unknown>,
  overrides: readonly string[],
  fail: (message: string) => Error,
): Record<string, unknown> {
  try {
    return applySetOverrides(schema, raw, overrides);
  } catch (error) {
    if (error instanceof ConfigOverrideError) throw fail(`${file}: override ${error.message}`);
    throw error;
  }
}
