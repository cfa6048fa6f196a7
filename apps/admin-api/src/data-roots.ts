import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { DEFAULT_MODEL_CHECKPOINT } from '@fathom/contracts';
import { AdminError, type ValidationIssue } from './errors';

/**
 * The directories a run's or an eval's checkpoint folder and task file must lie in: DATA_ROOTS, comma-separated,
 * each resolved against the working directory (the repository root, for every service). A request naming a path
 * elsewhere is refused at the edge instead of reaching a worker that would open it.
 */
export function parseDataRoots(spec: string, base = process.cwd()): string[] {
  return spec
    .split(',')
    .map((root) => root.trim())
    .filter((root) => root !== '')
    .map((root) => resolve(base, root));
}

/** Whether `target` is `root` or lies below it (lexically: `..` segments are resolved first). */
function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Throws VALIDATION_ERROR (422) naming the field when `value` — resolved against `base` as the services resolve
 * it — lies outside every root. "default", the shipped model, is always allowed for a checkpoint.
 */
export function checkDataPath(
  roots: readonly string[],
  field: readonly string[],
  value: string,
  base = process.cwd(),
): void {
  if (field.at(-1) === 'checkpoint' && value === DEFAULT_MODEL_CHECKPOINT) return;
  const target = resolve(base, value);
  if (roots.some((root) => within(root, target))) return;
  const message =
    `${JSON.stringify(value)} is outside the data roots (${roots.join(', ') || 'none configured'}); ` +
    'name a path under one of them, or add its directory to DATA_ROOTS';
  const issues: ValidationIssue[] = [{ path: ['body', ...field], message, code: 'outside_data_roots' }];
  throw new AdminError('VALIDATION_ERROR', `invalid body: body.${field.join('.')}: ${message}`, issues);
}

/** What a path names on disk. */
export type DataPathKind = 'directory' | 'file' | 'missing' | 'unreadable';

/** The filesystem as the data checks see it (a port, so a service test needs no files). */
export interface DataPathProbe {
  kind(path: string): Promise<DataPathKind>;
}

/** The real filesystem: `stat`, with a path that does not exist (or runs through a file) as `missing`. */
export const fsDataPathProbe: DataPathProbe = {
  kind: async (path) => {
    try {
      return (await stat(path)).isDirectory() ? 'directory' : 'file';
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable';
    }
  },
};

const WHY_NOT: Record<DataPathKind, string> = {
  missing: 'does not exist',
  unreadable: 'cannot be read',
  directory: 'is a folder, not a file',
  file: 'is a file, not a folder',
};

/**
 * Throws VALIDATION_ERROR (422) naming the field when `value` — resolved against `base` as the services resolve it —
 * is not a `want` (a checkpoint folder, a task file) on disk, so a run that would fail at its first step is refused
 * when it is created. "default", the shipped model, needs no folder.
 */
export async function checkDataExists(
  probe: DataPathProbe,
  field: readonly string[],
  value: string,
  want: 'directory' | 'file',
  base = process.cwd(),
): Promise<void> {
  if (field.at(-1) === 'checkpoint' && value === DEFAULT_MODEL_CHECKPOINT) return;
  const target = resolve(base, value);
  const kind = await probe.kind(target);
  if (kind === want) return;
  const message = `${want === 'directory' ? 'checkpoint folder' : 'file'} ${JSON.stringify(value)} ${WHY_NOT[kind]} (${target})`;
  const issues: ValidationIssue[] = [{ path: ['body', ...field], message, code: 'not_found' }];
  throw new AdminError('VALIDATION_ERROR', `invalid body: body.${field.join('.')}: ${message}`, issues);
}
