import { INVALID_TEXT } from '@fathom/contracts';
import { AdminError, type ValidationIssue } from '../errors';
import { ADMIN_OPERATIONS } from './openapi';

/** The documented routes with path parameters, split into segments ("{id}" marks a parameter). */
const PARAMETERISED_ROUTES = [...new Set(ADMIN_OPERATIONS.map((op) => op.path))]
  .filter((path) => path.includes('{'))
  .map((path) => path.split('/'));

const decodes = (segment: string): boolean => {
  try {
    decodeURIComponent(segment);
    return true;
  } catch {
    return false;
  }
};

/**
 * The error for a request whose path parameter is not percent-encoded UTF-8 (`/runs/%ff%fe`): Express refuses to
 * decode it before any controller runs, so this names the parameter from the documented route the raw path has
 * the shape of (`path.id`), or the path as a whole when no route matches.
 */
export function undecodablePathError(rawPath: string): AdminError {
  const segments = rawPath.split('/');
  let field = ['path'];
  let raw = rawPath;
  for (const route of PARAMETERISED_ROUTES) {
    if (route.length !== segments.length) continue;
    if (!route.every((part, i) => part.startsWith('{') || part === segments[i])) continue;
    const at = route.findIndex((part, i) => part.startsWith('{') && !decodes(segments[i]!));
    if (at < 0) continue;
    field = ['path', route[at]!.slice(1, -1)];
    raw = segments[at]!;
    break;
  }
  const message = `${JSON.stringify(raw)} is not percent-encoded UTF-8`;
  const issue: ValidationIssue = { path: field, message, code: INVALID_TEXT };
  return new AdminError('INVALID_TEXT', `invalid path: ${field.join('.')}: ${message}`, [issue]);
}
