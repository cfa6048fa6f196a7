import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { isUtf8 } from 'node:buffer';
import { z } from 'zod';

/**
 * The checks an HTTP service makes before it reads a request: which `Host` it answers (DNS rebinding), which browser
 * origins it serves, its bearer token, and that a body is UTF-8. Each returns why a request is refused, or null; the
 * service writes the refusal in its own error taxonomy.
 */

/** Whether `host` (a hostname or IP, IPv6 with or without brackets) names the loopback interface only. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice('::ffff:'.length) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A comma-separated list of host names (no port: any port is accepted), lower-cased, e.g.
 * `ADMIN_ALLOWED_HOSTS=admin.internal,fathom.example.com`. Empty entries are dropped.
 */
export const HostNameListSchema = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== ''),
  )
  .refine((names) => names.every((name) => HOSTNAME.test(name) || isIP(name) !== 0), {
    message: 'expected comma-separated host names without port or scheme, e.g. "admin.internal,10.0.0.5"',
  });

/**
 * A comma-separated list of browser origins (`scheme://host[:port]`, no path), e.g.
 * `ENV_ALLOWED_ORIGINS=https://notebook.example.com,http://localhost:3000`.
 */
export const OriginListSchema = z
  .string()
  .transform((text) =>
    text
      .split(',')
      .map((origin) => origin.trim())
      .filter((origin) => origin !== ''),
  )
  .refine((origins) => origins.every((origin) => originOf(origin) === origin.toLowerCase().replace(/\/$/, '')), {
    message: 'expected comma-separated origins of the form scheme://host[:port], e.g. "https://app.example.com"',
  });

/** `text`'s origin (`scheme://host[:port]`), or null when it is not an http(s) URL. */
function originOf(text: string): string | null {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** A `Host` header as a URL (its hostname lower-cased, its port), or null when it is not a bare host[:port]. */
function parseHostHeader(host: string | undefined): URL | null {
  if (host === undefined) return null;
  try {
    const url = new URL(`http://${host}`);
    return url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' ? url : null;
  } catch {
    return null;
  }
}

/**
 * The `Host` check of a service that anyone who can reach it may use (no token, loopback only): it answers only
 * requests addressed to a loopback name (127.0.0.0/8, localhost, [::1], any port) or to one of `allowedHosts`. A web
 * page whose own name was rebound to 127.0.0.1 sends its name as `Host` and is refused. Returns the refusal message
 * (answered 421 Misdirected Request), or null.
 */
export function checkHost(allowedHosts: readonly string[], variable: string) {
  const allowed = new Set(allowedHosts);
  return (host: string | undefined): string | null => {
    const name = parseHostHeader(host)?.hostname.replace(/^\[(.*)\]$/, '$1');
    if (name !== undefined && (isLoopbackHost(name) || allowed.has(name))) return null;
    const got = host === undefined ? 'a request without a Host header' : `Host ${JSON.stringify(host)}`;
    return (
      `${got} is not served: this service answers only requests addressed to a loopback name (127.0.0.1, ` +
      `localhost, [::1]) or to a name listed in ${variable}`
    );
  };
}

/**
 * The `Origin` check of a service that browsers must not drive from other sites: a request without `Origin` (any
 * non-browser client) passes, and so does one from the service's own loopback origin (an Origin whose host names
 * loopback and is the `Host` addressed) or from one of `allowedOrigins`. Returns the refusal message (403), or null.
 */
export function checkOrigin(allowedOrigins: readonly string[], variable: string) {
  const allowed = new Set(allowedOrigins.map((origin) => originOf(origin)));
  return (origin: string | undefined, host: string | undefined): string | null => {
    if (origin === undefined) return null;
    const parsed = originOf(origin);
    if (parsed !== null && allowed.has(parsed)) return null;
    const addressed = parseHostHeader(host);
    if (parsed !== null && addressed !== null) {
      const url = new URL(parsed);
      if (isLoopbackHost(url.hostname) && url.host === addressed.host) return null;
    }
    return `requests from the web page origin ${JSON.stringify(origin)} are refused; list it in ${variable} to allow it`;
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Bearer-token auth: `Authorization: Bearer <token>`, compared as SHA-256 digests in constant time. Returns the
 * refusal message (401) for a missing, malformed or wrong header, or null; with no `token` configured everything
 * passes. `variable` names the setting the client should send (e.g. "ADMIN_TOKEN").
 */
export function checkBearerToken(token: string | undefined, variable: string) {
  const expected = token === undefined ? undefined : digest(token);
  return (authorization: string | undefined): string | null => {
    if (expected === undefined) return null;
    const presented = authorization === undefined ? undefined : /^Bearer +(\S+)$/i.exec(authorization)?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return null;
    return authorization === undefined
      ? `missing Authorization header; send "Authorization: Bearer <${variable}>"`
      : presented === undefined
        ? 'Authorization header is not of the form "Bearer <token>"'
        : 'invalid bearer token';
  };
}

/** body-parser's error `type` for a body that is not UTF-8 (`onBodyParserError` answers it as "invalid_utf8"). */
export const INVALID_UTF8_TYPE = 'entity.invalid.utf8';

/**
 * A body-parser `verify` option that refuses a body that is not well-formed UTF-8, which the JSON parser would
 * otherwise decode with U+FFFD in place of each bad byte and accept.
 */
export function verifyUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (isUtf8(body)) return;
  throw Object.assign(new Error('request body is not valid UTF-8'), { status: 400, type: INVALID_UTF8_TYPE });
}
