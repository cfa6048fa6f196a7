import { HealthReportSchema } from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { AddressInfo } from 'node:net';
import { Counter, Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { OpsModule, type OpsOptions } from './ops.module';

let app: { port: number; close(): Promise<void> } | undefined;
afterEach(() => app?.close());

/** A Nest application of `OpsModule` alone on a free loopback port. */
async function serve(options: OpsOptions) {
  const nest = await NestFactory.create<NestExpressApplication>(OpsModule.create(options), { logger: false });
  await nest.listen(0, '127.0.0.1');
  return { port: (nest.getHttpServer().address() as AddressInfo).port, close: () => nest.close() };
}

describe('the ops endpoints', () => {
  it('serve /metrics from the registry and /health from the checks (503 naming the failing one)', async () => {
    const registry = new Registry();
    new Counter({ name: 'fathom_test_total', help: 'test', registers: [registry] }).inc(2);
    let redisUp = true;
    const logged: unknown[] = [];
    app = await serve({
      registry,
      logger: createLogger({
        service: 'test',
        write: (line) => logged.push((({ check, reason }) => ({ check, reason }))(JSON.parse(line))),
      }),
      checks: [
        { name: 'postgres', check: async () => undefined },
        {
          name: 'redis',
          check: async () => {
            if (!redisUp) throw new Error('connect ECONNREFUSED 10.0.0.7:6379 (user fathom)');
          },
        },
      ],
      checkTimeoutMs: 50,
    });
    const base = `http://127.0.0.1:${app.port}`;
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toContain('fathom_test_total 2');
    const healthy = await fetch(`${base}/health`);
    expect(healthy.status).toBe(200);
    expect(HealthReportSchema.parse(await healthy.json())).toEqual({
      status: 'healthy',
      checks: { postgres: 'ok', redis: 'ok' },
    });
    redisUp = false;
    const down = await fetch(`${base}/health`);
    expect(down.status).toBe(503);
    // Public: which dependency is down, never its error text (hosts, users, queries), which only the log gets.
    expect(await down.json()).toEqual({ status: 'unhealthy', checks: { postgres: 'ok', redis: 'unavailable' } });
    expect(logged).toEqual([{ check: 'redis', reason: 'connect ECONNREFUSED 10.0.0.7:6379 (user fathom)' }]);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });

  it("answer OpenEnv's health reply, the status alone, when there is nothing to check", async () => {
    app = await serve({
      registry: new Registry(),
      checks: [],
    });
    const reply = await fetch(`http://127.0.0.1:${app.port}/health`);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ status: 'healthy' });
  });

  it('count a check that does not answer in time as failed', async () => {
    app = await serve({
      registry: new Registry(),
      checks: [{ name: 'slow', check: () => new Promise(() => undefined) }],
      checkTimeoutMs: 50,
    });
    const reply = await fetch(`http://127.0.0.1:${app.port}/health`);
    expect(reply.status).toBe(503);
    expect(await reply.json()).toEqual({ status: 'unhealthy', checks: { slow: 'no answer within 50 ms' } });
  });
});
