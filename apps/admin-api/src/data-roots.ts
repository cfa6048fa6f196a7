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
