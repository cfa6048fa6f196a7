import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { createTestDatabase, request, startHarness, type Harness, type TestDatabase } from './test-support/harness';

const TOKEN = 'test-token-0123456789abcdef';
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase('auth');
});

afterAll(async () => {
  await db?.drop();
});

describe('with NODE_ENV=production', () => {
  it('refuses to boot without ADMIN_TOKEN, naming the variable', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /invalid admin-api configuration: ADMIN_TOKEN is required \(required when NODE_ENV=production\)/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'short' })).toThrow(
      /ADMIN_TOKEN=\(hidden\): must be at least 16 characters/,
    );
  });

  describe('with a token', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness(db.url, { NODE_ENV: 'production', ADMIN_TOKEN: TOKEN, LOG_LEVEL: 'silent' });
    });
    afterAll(async () => {
      await h?.close();
    });

    it.each([
      ['GET', '/runs'],
      ['POST', '/runs'],
      ['GET', '/runs/run-nope'],
      ['GET', '/queues'],
      ['POST', '/evals'],
      ['GET', '/docs/openapi.json'],
      ['GET', '/nowhere'],
    ])('answers %s %s with 401 without a token, or with a wrong or malformed one', async (method, path) => {
      const none = await request(h.baseUrl, method, path, { body: method === 'POST' ? { name: 'x' } : undefined });
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(none.body.message).toMatch(/missing Authorization header/);
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      const wrong = await request(h.baseUrl, method, path, { token: `${TOKEN}x` });
      expect(wrong.status).toBe(401);
      expect(wrong.body.message).toBe('invalid bearer token');
      const basic = await request(h.baseUrl, method, path, { headers: { authorization: `Basic ${TOKEN}` } });
      expect(basic.status).toBe(401);
      expect(basic.body.message).toMatch(/not of the form "Bearer <token>"/);
    });

    it('serves requests that carry the token', async () => {
      const created = await request(h.baseUrl, 'POST', '/runs', { token: TOKEN, body: { name: 'authorised' } });
      expect(created.status).toBe(201);
      const got = await request(h.baseUrl, 'GET', `/runs/${created.body.id}`, { token: TOKEN });
      expect(got.status).toBe(200);
      expect((await request(h.baseUrl, 'GET', '/runs/run-nope', { token: TOKEN })).status).toBe(404);
    });

    it('does not parse the body of an unauthenticated request', async () => {
      const reply = await request(h.baseUrl, 'POST', '/runs', { body: '{not json' });
      expect(reply.status).toBe(401);
    });

    it('leaves /health and /metrics open for probes and scrapes', async () => {
      expect((await request(h.baseUrl, 'GET', '/health')).status).toBe(200);
      expect((await request(h.baseUrl, 'GET', '/metrics')).status).toBe(200);
    });

    it("serves the dashboard's static files without a token, but not its data", async () => {
      expect((await request(h.baseUrl, 'GET', '/dashboard/')).status).toBe(200);
      expect((await request(h.baseUrl, 'GET', '/dashboard/app.js')).status).toBe(200);
      expect((await request(h.baseUrl, 'GET', '/dashboard/vendor/uPlot.esm.js')).status).toBe(200);
      expect((await request(h.baseUrl, 'GET', '/evals')).status).toBe(401);
      expect((await request(h.baseUrl, 'GET', '/dashboardx')).status).toBe(401);
    });
  });
});

describe('without a token outside production', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(db.url, { NODE_ENV: 'development', LOG_LEVEL: 'silent' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves every route without auth', async () => {
    expect((await request(h.baseUrl, 'GET', '/runs')).status).toBe(200);
    expect((await request(h.baseUrl, 'GET', '/queues')).status).toBe(200);
  });
});
