import type { Logger } from '@fathom/observability';
import { checkBearerToken, checkHost, onBodyParserError } from '@fathom/runtime';
import type { NextFunction, Request, Response } from 'express';
import { isDashboardAssetPath } from '../dashboard/dashboard.assets';
import { AdminError } from '../errors';
import type { AdminMetrics } from '../metrics';
import { sendAdminError } from './http-error.filter';

/** Routes that answer without a token: liveness probes and the Prometheus scrape carry no run data. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/health', '/metrics']);

/** Whether a path answers without a token: the public routes, and the dashboard's static files (no run data). */
export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || isDashboardAssetPath(path);

/**
 * Without a token, answers only requests addressed (`Host`) to a loopback name or one of ADMIN_ALLOWED_HOSTS, every
 * route included: a web page whose name was rebound to 127.0.0.1 is same-origin with itself, so its requests pass
 * the Origin check, but they name its own host. Others get 421 naming the host. With a token this is moot: a page
 * cannot send the Authorization header without a CORS preflight that the API never grants.
 */
export function loopbackHostsWithoutToken(
  token: string | undefined,
  allowedHosts: readonly string[],
  metrics: AdminMetrics,
) {
  const refusal = checkHost(allowedHosts, 'ADMIN_ALLOWED_HOSTS');
  return (req: Request, res: Response, next: NextFunction) => {
    const message = token === undefined ? refusal(req.headers.host) : null;
    if (message === null) return next();
    sendAdminError(res, new AdminError('MISDIRECTED_REQUEST', message, { host: req.headers.host ?? null }), metrics);
  };
}

/**
 * Bearer-token auth in front of everything (even the body parser, so an unauthenticated client cannot make the
 * service parse a large body). Without a token configured it lets everything through; the config makes a token
 * mandatory when NODE_ENV=production.
 */
export function bearerAuth(token: string | undefined, metrics: AdminMetrics) {
  const refusal = checkBearerToken(token, 'ADMIN_TOKEN');
  return (req: Request, res: Response, next: NextFunction) => {
    const message = isPublicPath(req.path) ? null : refusal(req.headers.authorization);
    if (message === null) return next();
    sendAdminError(res, new AdminError('UNAUTHORIZED', message), metrics);
  };
}

/** Methods that change state; a browser sends them cross-origin without asking first when the body is "simple". */
const UNSAFE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Request bodies are JSON only: a request that carries a body, or declares a Content-Type, must declare
 * `application/json` (415 otherwise). Parsing every type as JSON let any web page create runs with a cross-origin
 * `text/plain` POST, which browsers send without a CORS preflight.
 */
export function jsonBodiesOnly(metrics: AdminMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const type = req.headers['content-type'];
    const length = req.headers['content-length'];
    const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!UNSAFE_METHODS.has(req.method) || (type === undefined && !hasBody)) return next();
    if (type?.split(';')[0]!.trim().toLowerCase() === 'application/json') return next();
    const got = type === undefined ? 'a body without a Content-Type' : `Content-Type ${JSON.stringify(type)}`;
    const message = `${req.method} ${req.path} accepts only "Content-Type: application/json"; got ${got}`;
    sendAdminError(res, new AdminError('UNSUPPORTED_MEDIA_TYPE', message), metrics);
  };
}

/**
 * Without a token, refuses state changes that a browser sent on behalf of another origin (the `Origin` header
 * names a host other than the one addressed), e.g. a body-less POST /runs/:id/stop from a page on the internet
 * to a loopback-only admin API. With a token this is moot: the Authorization header needs a CORS preflight that
 * the API never grants.
 */
export function sameOriginWithoutToken(token: string | undefined, metrics: AdminMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (token !== undefined || origin === undefined || !UNSAFE_METHODS.has(req.method)) return next();
    let originHost: string | null = null;
    try {
      originHost = new URL(origin).host;
    } catch {
      // "null" (a sandboxed page, a file) or garbage: not this origin.
    }
    if (originHost !== null && originHost === req.headers.host) return next();
    const message = `cross-origin ${req.method} from ${JSON.stringify(origin)} refused: without an ADMIN_TOKEN the admin API accepts changes only from its own pages`;
    sendAdminError(res, new AdminError('CROSS_ORIGIN', message), metrics);
  };
}

/** body-parser failures (too large, not UTF-8, bad JSON, unreadable) as taxonomy errors. */
export function bodyParserErrors(metrics: AdminMetrics) {
  const codes = {
    too_large: 'PAYLOAD_TOO_LARGE',
    invalid_utf8: 'INVALID_TEXT',
    invalid_json: 'INVALID_JSON',
    unreadable: 'INVALID_JSON',
  } as const;
  return onBodyParserError((failure, _req, res) =>
    sendAdminError(res, new AdminError(codes[failure.kind], failure.message), metrics),
  );
}

/** One structured log line and the HTTP metrics per request, labelled by route pattern (never by raw path). */
export function requestLog(logger: Logger, metrics: AdminMetrics) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1000;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      metrics.requests.inc({ method: req.method, route, status: String(res.statusCode) });
      metrics.requestSeconds.observe({ method: req.method, route }, seconds);
      // Probes, scrapes and the dashboard's static files arrive often; they would drown the log at info.
      const level = res.statusCode >= 500 ? 'error' : isPublicPath(req.path) ? 'debug' : 'info';
      logger[level]('request', {
        method: req.method,
        path: req.path,
        route,
        status: res.statusCode,
        duration_ms: Math.round(seconds * 1e4) / 10,
      });
    });
    next();
  };
}
