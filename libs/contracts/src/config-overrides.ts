import { z } from 'zod';
import { FathomError } from './errors';

/**
 * Why a `--set key=value` override was refused: `MALFORMED` (no `=`, an empty key), `UNKNOWN_KEY` (the path leaves
 * the schema) or `INVALID_VALUE` (the value does not read as the leaf's type).
 */
export type ConfigOverrideErrorCode = 'MALFORMED' | 'UNKNOWN_KEY' | 'INVALID_VALUE';

export class ConfigOverrideError extends FathomError<ConfigOverrideErrorCode> {}

/** A schema with its optional, default, prefault, nullable and pipe wrappers taken off: the type a value must have. */
function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    if (
      s instanceof z.ZodOptional ||
      s instanceof z.ZodDefault ||
      s instanceof z.ZodPrefault ||
      s instanceof z.ZodNullable
    )
      s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
}

/** The object schemas a path segment may step into: the object itself, or the object options of a union. */
function objectsOf(schema: z.ZodType): z.ZodObject[] {
  if (schema instanceof z.ZodObject) return [schema];
  if (schema instanceof z.ZodUnion)
    return (schema.options as z.ZodType[]).flatMap((option) => objectsOf(unwrap(option)));
  return [];
}

/** The leaf schema at `path`; throws UNKNOWN_KEY naming the path and the keys valid where it went wrong. */
function leafAt(schema: z.ZodType, path: readonly string[]): z.ZodType {
  let node = unwrap(schema);
  for (const [i, key] of path.entries()) {
    const here = path.slice(0, i).join('.');
    const objects = objectsOf(node);
    if (objects.length === 0)
      throw new ConfigOverrideError(
        'UNKNOWN_KEY',
        `${path.join('.')}: ${here} is a value, not a section; set it as ${here}=<value>`,
      );
    const holder = objects.find((o) => key in o.shape);
    if (holder === undefined) {
      const keys = [...new Set(objects.flatMap((o) => Object.keys(o.shape)))].sort();
      throw new ConfigOverrideError(
        'UNKNOWN_KEY',
        `${path.join('.')}: unknown key "${key}"${here === '' ? '' : ` in ${here}`}; valid keys: ${keys.join(', ')}`,
      );
    }
    node = unwrap(holder.shape[key] as z.ZodType);
  }
  return node;
}

/**
 * The value `text` stands for as the leaf type `leaf`: a number, an integer, `true`/`false`, one of an enum's
 * values, the text itself for a string, JSON for anything else (arrays, objects, unions). Range checks are left to
 * the schema, which parses the whole config afterwards.
 */
function parseLeaf(key: string, leaf: z.ZodType, text: string): unknown {
  const invalid = (expected: string) =>
    new ConfigOverrideError('INVALID_VALUE', `${key}: expected ${expected}, got "${text}"`);
  if (leaf instanceof z.ZodNumber) {
    const value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw invalid(leaf.isInt ? 'an integer' : 'a number');
    if (leaf.isInt && !Number.isInteger(value)) throw invalid('an integer');
    return value;
  }
  if (leaf instanceof z.ZodBoolean) {
    if (text !== 'true' && text !== 'false') throw invalid('true or false');
    return text === 'true';
  }
  if (leaf instanceof z.ZodEnum) {
    const options = leaf.options as readonly (string | number)[];
    const value = options.find((option) => String(option) === text);
    if (value === undefined) throw invalid(`one of ${options.join(', ')}`);
    return value;
  }
  if (leaf instanceof z.ZodString) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid('JSON');
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `raw` with `value` at `path`, copying every object on the way (sections absent from `raw` start empty). */
function setAt(raw: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const [key, ...rest] = path;
  if (rest.length === 0) return { ...raw, [key]: value };
  const section = raw[key];
  return { ...raw, [key]: setAt(isObject(section) ? section : {}, rest, value) };
}

/**
 * Applies `--set key=value` overrides to a raw config object (a config file's JSON, before validation): each key is
 * a dotted path into `schema` (`rollout.maxTurns`, `optimizer.lr`), checked against it, and each value is
 * read as the leaf's type. Later overrides of the same key win. Returns a new object (`raw` is not changed), which
 * the caller parses with `schema` as usual, so defaults, ranges and cross-field rules apply to overridden values like
 * file values.
 *
 * Throws ConfigOverrideError: MALFORMED for an override without `=` or with an empty path segment, UNKNOWN_KEY naming
 * the path and the valid keys at the point it left the schema, INVALID_VALUE naming the path, the expected type and
 * the value.
 */
export function applySetOverrides(
  schema: z.ZodType,
  raw: Record<string, unknown>,
  overrides: readonly string[],
): Record<string, unknown> {
  let out = raw;
  for (const override of overrides) {
    const eq = override.indexOf('=');
    const path = eq < 0 ? [] : override.slice(0, eq).trim().split('.');
    if (path.length === 0 || path.some((segment) => segment === ''))
      throw new ConfigOverrideError('MALFORMED', `"${override}": expected key=value, the key a dotted path`);
    const key = path.join('.');
    out = setAt(out, path, parseLeaf(key, leafAt(schema, path), override.slice(eq + 1)));
  }
  return out;
}
