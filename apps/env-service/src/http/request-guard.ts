import { checkBearerToken, checkHost, checkOrigin, isLoopbackHost } from '@fathom/runtime';
import type { IncomingMessage } from 'node:http';
import type { EnvServiceConfig } from '../config';
import { EnvError } from '../errors';

/** Paths that answer without OPENENV_TOKEN: probes and scrapes, and the OpenAI-compatible API (API_TOKEN's). */
const withoutOpenEnvToken = (path: string) =>
  path === '/health' || path === '/metrics' || path === '/v1' || path.startsWith('/v1/');

/**
 * Who may use the service over HTTP and WebSocket, checked before a body is read or an upgrade accepted, in order:
 * - with HOST on loopback, the `Host` named must be loopback or in ENV_ALLOWED_HOSTS (MISDIRECTED_REQUEST, 421): a
 *   web page whose name was rebound to 127.0.0.1 is same-origin with itself and sends no `Origin` on a GET;
 * - a browser's `Origin` must be the service's own loopback origin or in ENV_ALLOWED_ORIGINS (FORBIDDEN_ORIGIN,
 *   403), so no other web page can reset, step or hold sessions; clients that send no `Origin` are not affected;
 * - with OPENENV_TOKEN set, `Authorization: Bearer <OPENENV_TOKEN>` on every route but /health, /metrics and /v1
 *   (UNAUTHORIZED, 401).
 * Returns the refusal, or null.
 */
export function requestGuard(config: EnvServiceConfig): (req: IncomingMessage, path: string) => EnvError | null {
  const host = isLoopbackHost(config.HOST) ? checkHost(config.ENV_ALLOWED_HOSTS, 'ENV_ALLOWED_HOSTS') : null;
  const origin = checkOrigin(config.ENV_ALLOWED_ORIGINS, 'ENV_ALLOWED_ORIGINS');
  const token = checkBearerToken(config.OPENENV_TOKEN, 'OPENENV_TOKEN');
  return (req, path) => {
    const misdirected = host?.(req.headers.host) ?? null;
    if (misdirected !== null) {
      return new EnvError('MISDIRECTED_REQUEST', misdirected, { host: req.headers.host ?? null });
    }
    const foreign = origin(req.headers.origin, req.headers.host);
    if (foreign !== null) return new EnvError('FORBIDDEN_ORIGIN', foreign, { origin: req.headers.origin });
    const unauthorized = withoutOpenEnvToken(path) ? null : token(req.headers.authorization);
    return unauthorized === null ? null : new EnvError('UNAUTHORIZED', unauthorized);
  };
}
