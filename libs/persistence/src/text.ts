/** What a NUL character is stored as: Unicode's replacement character. */
export const NUL_REPLACEMENT = '\uFFFD';

/**
 * Postgres text and jsonb cannot hold the NUL character (U+0000; jsonb rejects the `\u0000` escape), but a sampling
 * policy can emit one, and a transcript must be stored whatever the model wrote. Returns `value` with every NUL in
 * every string (keys included, at any depth) replaced by U+FFFD; everything else is returned as is.
 */
export function withoutNul<T>(value: T): T {
  if (typeof value === 'string')
    return (value.includes('\u0000') ? value.replaceAll('\u0000', NUL_REPLACEMENT) : value) as T;
  if (Array.isArray(value)) return value.map((v) => withoutNul(v)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [withoutNul(k), withoutNul(v)])) as T;
  }
  return value;
}
