import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** A dependency a service needs (Postgres, Redis, the learner): healthy when `check` resolves. */
export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface OpsServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  registry: Registry;
  checks: readonly HealthCheck[];
  /** How long one check may take before it counts as failed. */
  checkTimeoutMs?: number;
}

export interface OpsServer {
  port: number;
  close(): Promise<void>;
}

/** The result of /health: 200 with status "healthy" when every check passed, 503 and the failures otherwise. */
export async function runHealthChecks(
  checks: readonly HealthCheck[],
  timeoutMs: number,
): Promise<{ status: 'healthy' | 'unhealthy'; checks: Record<string, string> }> {
  const results = await Promise.all(
    checks.map(async (c) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        await Promise.race([c.check(), timeout]);
        return [c.name, 'ok'] as const;
      } catch (error) {
        return [c.name, error instanceof Error ? error.message : String(error)] as const;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  const healthy = results.every(([, r]) => r === 'ok');
  return { status: healthy ? 'healthy' : 'unhealthy', checks: Object.fromEntries(results) };
}

/**
 * The operations endpoint of a worker service: `GET /metrics` (Prometheus text format from the service's registry)
 * and `GET /health` (every dependency check). Anything else is 404. Workers have no other HTTP surface.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const timeoutMs = options.checkTimeoutMs ?? 2000;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const reply = (status: number, type: string, body: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    if (req.method !== 'GET') return reply(405, 'application/json', JSON.stringify({ error: 'only GET is served' }));
    if (path === '/metrics') {
      options.registry
        .metrics()
        .then((text) => reply(200, options.registry.contentType, text))
        .catch((error: unknown) => reply(500, 'application/json', JSON.stringify({ error: String(error) })));
      return;
    }
    if (path === '/health') {
      void runHealthChecks(options.checks, timeoutMs).then((result) =>
        reply(result.status === 'healthy' ? 200 : 503, 'application/json', JSON.stringify(result)),
      );
      return;
    }
    reply(404, 'application/json', JSON.stringify({ error: `no route ${path}; try /health or /metrics` }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
