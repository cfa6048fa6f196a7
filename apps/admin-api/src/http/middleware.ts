import type { Logger } from '@fathom/observability';
import { onBodyParserError } from '@fathom/runtime';
import type { NextFunction, Request, Response } from 'express';
import { createHash, timingSafeEqual } from 'node:crypto';
import { isDashboardAssetPath } from '../dashboard/dashboard.assets';
import { AdminError } from '../errors';
import type { AdminMetrics } from '../metrics';
import { sendAdminError } from './http-error.filter';

/** Routes that answer without a token: liveness probes and the Prometheus scrape carry no run data. */
export const PUBLIC_PATHS: ReadonlySet<string> = new Set(['/health', '/metrics']);

/** Whether a path answers without a token: the public routes, and the dashboard's static files (no run data). */
export const isPublicPath = (path: string): boolean => PUBLIC_PATHS.has(path) || isDashboardAssetPath(path);

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * Bearer-token auth in front of everything (even the body parser, so an unauthenticated client cannot make the
 * service parse a large body). Without a token configured it lets everything through; the config makes a token
 * mandatory when NODE_ENV=production. Tokens are compared as SHA-256 digests in constant time.
 */
export function bearerAuth(token: string | undefined, metrics: AdminMetrics) {
  const expected = token === undefined ? undefined : digest(token);
  return (req: Request, res: Response, next: NextFunction) => {
    if (expected === undefined || isPublicPath(req.path)) return next();
    const header = req.headers.authorization;
    const presented = header === undefined ? undefined : /^Bearer +(\S+)$/i.exec(header)?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) return next();
    const message =
      header === undefined
        ? 'missing Authorization header; send "Authorization: Bearer <ADMIN_TOKEN>"'
        : presented === undefined
          ? 'Authorization header is not of the form "Bearer <token>"'
          : 'invalid bearer token';
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

/** body-parser failures (bad JSON, too large, unreadable) as taxonomy errors. */
export function bodyParserErrors(metrics: AdminMetrics) {
  return onBodyParserError((failure, _req, res) =>
    sendAdminError(
      res,
      new AdminError(failure.kind === 'too_large' ? 'PAYLOAD_TOO_LARGE' : 'INVALID_JSON', failure.message),
      metrics,
    ),
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
