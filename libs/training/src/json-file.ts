import { readFile } from 'node:fs/promises';

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
