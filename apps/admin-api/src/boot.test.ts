import { dropDatabase, ensureDatabase } from '@fathom/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminApi } from './bootstrap';
import { loadConfig } from './config';
import { DatabaseNotReadyError } from './ops/schema-check';
import { createTestDatabase, request, startHarness, type Harness, type TestDatabase } from './test-support/harness';

const POSTGRES = process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('boot');
});

afterAll(async () => {
  await db?.drop();
});

describe('boot checks', () => {
  it('refuses a database without the migrations, saying how to apply them', async () => {
    const name = `fathom_test_admin_bare_${process.pid}`;
    const url = `${POSTGRES}/${name}`;
    await ensureDatabase(url);
    try {
      const config = loadConfig({ HTTP_PORT: '0', HOST: '127.0.0.1', DATABASE_URL: url, LOG_LEVEL: 'silent' });
      const attempt = startAdminApi(config);
      await expect(attempt).rejects.toBeInstanceOf(DatabaseNotReadyError);
      await expect(startAdminApi(config)).rejects.toThrow(
        /lacks migrations \d+_init(, \d+_\w+)*; apply them with .*fathom db migrate/,
      );
    } finally {
      await dropDatabase(url);
    }
  });

  it('refuses to start when Postgres is unreachable, naming where it looked', async () => {
    const config = loadConfig({
      HTTP_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/fathom',
      LOG_LEVEL: 'silent',
    });
    await expect(startAdminApi(config)).rejects.toThrow(/cannot query Postgres at 127\.0\.0\.1:1\/fathom/);
  });
});

describe('with Redis unreachable', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(db.url, {
      REDIS_URL: 'redis://127.0.0.1:1',
      DEPENDENCY_TIMEOUT_MS: '300',
      LOG_LEVEL: 'silent',
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers queue routes with 503 and a reason, reports Redis unhealthy, and still serves Postgres routes', async () => {
    const queues = await request(h.baseUrl, 'GET', '/queues');
    expect(queues.status).toBe(503);
    expect(queues.body).toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(queues.body.message).toMatch(/Redis/);
    const health = await request(h.baseUrl, 'GET', '/health');
    expect(health.status).toBe(503);
    // Which dependency is down, not ioredis's or BullMQ's error text (issue 52).
    expect(health.body).toMatchObject({ status: 'unhealthy', checks: { postgres: 'ok' } });
    expect(health.body.checks.redis).toMatch(/^(unavailable|no answer within 300 ms)$/);
    expect((await request(h.baseUrl, 'GET', '/runs')).status).toBe(200);
    const metrics = await request(h.baseUrl, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).not.toMatch(/fathom_queue_jobs\{/);
  });
});
