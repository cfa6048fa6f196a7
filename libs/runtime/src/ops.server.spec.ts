import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from './ops.server';

let server: OpsServer | undefined;
afterEach(() => server?.close());

describe('the ops server', () => {
  it('serves /metrics from the registry and /health from the checks (503 naming the failing one)', async () => {
    const registry = new Registry();
    new Counter({ name: 'fathom_test_total', help: 'test', registers: [registry] }).inc(2);
    let redisUp = true;
    server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      registry,
      checks: [
        { name: 'postgres', check: async () => undefined },
        {
          name: 'redis',
          check: async () => {
            if (!redisUp) throw new Error('connection refused');
          },
        },
        { name: 'slow', check: () => new Promise(() => undefined) },
      ],
      checkTimeoutMs: 50,
    });
    const base = `http://127.0.0.1:${server.port}`;
    expect(await (await fetch(`${base}/metrics`)).text()).toContain('fathom_test_total 2');
    const slow = await fetch(`${base}/health`);
    expect(slow.status).toBe(503);
    expect(await slow.json()).toEqual({
      status: 'unhealthy',
      checks: { postgres: 'ok', redis: 'ok', slow: 'no answer within 50 ms' },
    });
    redisUp = false;
    expect(((await (await fetch(`${base}/health`)).json()) as { checks: Record<string, string> }).checks.redis).toBe(
      'connection refused',
    );
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
  });
});
