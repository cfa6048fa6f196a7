import { RUN_LIMITS } from '@fathom/contracts';
import { RunRepository } from '@fathom/persistence';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminApi } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import {
  createTestDatabase,
  request,
  startHarness,
  type Harness,
  type Json,
  type TestDatabase,
} from './test-support/harness';

let db: TestDatabase;
let h: Harness;
const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  request(h.baseUrl, method, path, { body, headers });

beforeAll(async () => {
  db = await createTestDatabase('hardening');
  h = await startHarness(db.url, { LOG_LEVEL: 'silent' });
});

afterAll(async () => {
  await h?.close();
  await db?.drop();
});

describe('text that Postgres cannot store is refused at the edge', () => {
  // The 25 inputs that answered 500 on the fuzzed main (issue 17), by shape.
  it.each([
    ['GET', '/runs/%00', undefined, ['path', 'id']],
    ['GET', '/runs/a%00b', undefined, ['path', 'id']],
    ['GET', '/runs/%ff%fe', undefined, ['path', 'id']],
    ['GET', '/runs/a%00b/steps', undefined, ['path', 'id']],
    ['GET', '/runs/%ff%fe/steps', undefined, ['path', 'id']],
    ['GET', '/runs/%00/series', undefined, ['path', 'id']],
    ['GET', '/runs/%ff%fe/series', undefined, ['path', 'id']],
    ['GET', '/runs/%00/episodes', undefined, ['path', 'id']],
    ['GET', '/runs/%c3%28/episodes', undefined, ['path', 'id']],
    ['POST', '/runs/%00/stop', undefined, ['path', 'id']],
    ['POST', '/runs/%ff%fe/stop', undefined, ['path', 'id']],
    ['POST', '/runs/%00/resume', undefined, ['path', 'id']],
    ['POST', '/runs/%ed%a0%80/resume', undefined, ['path', 'id']],
    ['GET', '/evals/%ff%fe', undefined, ['path', 'id']],
    ['GET', '/evals/%00', undefined, ['path', 'id']],
    ['GET', '/episodes/%ff', undefined, ['path', 'id']],
    ['GET', '/queues/%ff%fe/failed', undefined, ['path', 'name']],
    ['GET', '/queues/%00/failed', undefined, ['path', 'name']],
    ['POST', '/runs', '{"name":"a\\u0000b"}', ['body', 'name']],
    ['POST', '/runs', '{"name":"a\\ud800b"}', ['body', 'name']],
    ['POST', '/runs', '{"name":"\\udfff"}', ['body', 'name']],
    ['POST', '/runs', '{"name":"x","model":{"checkpoint":"\\u0000"}}', ['body', 'model', 'checkpoint']],
    ['POST', '/runs', '{"name":"x","data":{"trainFile":"a\\ud83d.jsonl"}}', ['body', 'data', 'trainFile']],
    ['POST', '/evals', '{"checkpoint":"ck\\u0000"}', ['body', 'checkpoint']],
    ['POST', '/evals', '{"checkpoint":"\\ud800"}', ['body', 'checkpoint']],
  ] as const)('%s %s %s → 400 INVALID_TEXT naming the field', async (method, path, body, field) => {
    const reply = await call(method, path, body);
    expect(reply.status).toBe(400);
    expect(reply.body.code).toBe('INVALID_TEXT');
    expect(reply.body.message).toContain(`${field.join('.')}: `);
    expect(reply.body.details).toContainEqual(expect.objectContaining({ path: field, code: 'invalid_text' }));
  });

  it('stores well-formed Unicode names, astral characters included', async () => {
    const created = await call('POST', '/runs', { name: 'ünïcode ✓ 🚀' });
    expect(created.status).toBe(201);
    expect((await call('GET', `/runs/${encodeURIComponent(created.body.id)}`)).body.name).toBe('ünïcode ✓ 🚀');
    expect((await call('GET', `/runs/${encodeURIComponent('🚀')}`)).status).toBe(404);
  });
});

describe('request bodies are JSON only, and changes come from this origin', () => {
  it('answers a text/plain POST (what any web page can send without a preflight) with 415 and creates nothing', async () => {
    const before = (await call('GET', '/runs')).body.length;
    const reply = await call('POST', '/runs', '{"name":"csrf"}', { 'content-type': 'text/plain' });
    expect(reply.status).toBe(415);
    expect(reply.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(reply.body.message).toBe(
      'POST /runs accepts only "Content-Type: application/json"; got Content-Type "text/plain"',
    );
    for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonx']) {
      expect((await call('POST', '/runs', '{"name":"csrf"}', { 'content-type': type })).status, type).toBe(415);
    }
    const untyped = await fetch(`${h.baseUrl}/evals`, { method: 'POST', body: new Uint8Array([123, 125]) });
    expect(untyped.status).toBe(415);
    expect((await call('GET', '/runs')).body.length).toBe(before);
  });

  it('accepts application/json with parameters, and body-less POSTs without a Content-Type', async () => {
    const created = await call('POST', '/runs', '{"name":"typed"}', {
      'content-type': 'Application/JSON; charset=utf-8',
    });
    expect(created.status).toBe(201);
    const stop = await fetch(`${h.baseUrl}/runs/${created.body.id}/stop`, { method: 'POST' });
    expect(stop.status).toBe(200);
  });

  it('without a token, refuses a POST whose Origin is another site, and allows its own', async () => {
    const { body: run } = await call('POST', '/runs', { name: 'origin' });
    const foreign = await call('POST', `/runs/${run.id}/stop`, undefined, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toMatchObject({ code: 'CROSS_ORIGIN' });
    expect(foreign.body.message).toMatch(/cross-origin POST from "https:\/\/evil.example" refused/);
    expect((await call('POST', `/runs/${run.id}/stop`, undefined, { origin: 'null' })).status).toBe(403);
    expect((await call('GET', `/runs/${run.id}`)).body.status).toBe('pending');
    const own = await call('POST', `/runs/${run.id}/stop`, undefined, { origin: h.baseUrl });
    expect(own.status).toBe(200);
    expect((await call('GET', '/runs', undefined, { origin: 'https://evil.example' })).status).toBe(200);
  });
});

describe('run configs are bounded', () => {
  it.each([
    ['4096 × 4096 episodes per step', { batchSize: 4096, grpo: { groupSize: 4096 } }, ['body', 'batchSize']],
    ['256 × 8 episodes per step', { batchSize: 256 }, ['body', 'batchSize']],
    ['more steps than the limit', { steps: RUN_LIMITS.maxSteps + 1 }, ['body', 'steps']],
    // Issue 52: the first was accepted and failed a second later in the task generator, the others had no bound.
    [
      'min context 100 (the generator writes >= 512)',
      { data: { minContextTokens: 100 } },
      ['body', 'data', 'minContextTokens'],
    ],
    ['max context 1e9', { data: { maxContextTokens: 1e9 } }, ['body', 'data', 'maxContextTokens']],
    ['staleness 1e9', { grpo: { maxStaleness: 1e9 } }, ['body', 'grpo', 'maxStaleness']],
    [
      '64 turns × 32,768 tokens',
      { rollout: { maxTurns: 64, maxTokensPerTurn: 32_768 } },
      ['body', 'rollout', 'maxTokensPerTurn'],
    ],
  ])('refuses %s with 422 naming the field', async (_label, config, field) => {
    const reply = await call('POST', '/runs', { name: 'big', ...config });
    expect(reply.status).toBe(422);
    expect(reply.body.details.map((d: Json) => d.path)).toContainEqual(field);
  });

  it(`accepts the largest step (${RUN_LIMITS.maxEpisodesPerStep} episodes)`, async () => {
    const reply = await call('POST', '/runs', { name: 'max', batchSize: 128, grpo: { groupSize: 8 } });
    expect(reply.status).toBe(201);
  });
});

describe('run state transitions', () => {
  it('refuses to resume a run that was stopped or failed before it started (409)', async () => {
    const runs = new RunRepository(db.prisma);
    const { body: stopped } = await call('POST', '/runs', { name: 'never-started' });
    expect((await call('POST', `/runs/${stopped.id}/stop`)).body.status).toBe('stopped');
    const reply = await call('POST', `/runs/${stopped.id}/resume`);
    expect(reply.status).toBe(409);
    expect(reply.body).toMatchObject({ code: 'INVALID_TRANSITION', details: { status: 'stopped' } });
    expect(reply.body.message).toBe(
      `cannot resume run ${stopped.id}: it is stopped and never started, so there is nothing to resume; create a new run`,
    );
    // The learner cannot revive it either (it picked the run up as pending just before the stop).
    await expect(runs.setStatus(stopped.id, 'running')).rejects.toThrow(
      /cannot go from stopped to running: it never started/,
    );
    const { body: failed } = await call('POST', '/runs', { name: 'failed-pending' });
    await runs.setStatus(failed.id, 'failed', 'stored config is invalid');
    expect((await call('POST', `/runs/${failed.id}/resume`)).status).toBe(409);
  });

  it('resumes a run that started and was stopped', async () => {
    const runs = new RunRepository(db.prisma);
    const { body: run } = await call('POST', '/runs', { name: 'started' });
    await runs.setStatus(run.id, 'running');
    expect((await call('POST', `/runs/${run.id}/stop`)).body.status).toBe('stopping');
    await runs.setStatus(run.id, 'stopped');
    const resumed = await call('POST', `/runs/${run.id}/resume`);
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('running');
  });

  it('a stop racing the last step ends the run completed or stopped, never failed', async () => {
    const runs = new RunRepository(db.prisma);
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 12; i++) {
      const { body: run } = await call('POST', '/runs', { name: `race-${i}` });
      await runs.setStatus(run.id, 'running');
      // The learner finishing its last step, against the admin API's stop, in either order.
      const [stop, finish] = await Promise.allSettled([
        call('POST', `/runs/${run.id}/stop`),
        runs.setStatus(run.id, 'completed'),
      ]);
      expect(finish.status).toBe('fulfilled');
      expect(stop.status).toBe('fulfilled');
      const reply = (stop as PromiseFulfilledResult<Awaited<ReturnType<typeof call>>>).value;
      expect([200, 409]).toContain(reply.status);
      const final = (await runs.get(run.id))!.status;
      expect(['completed', 'stopped']).toContain(final);
      outcomes.set(final, (outcomes.get(final) ?? 0) + 1);
    }
    expect(outcomes.get('failed')).toBeUndefined();
  });

  it('lets the learner complete a run that is stopping', async () => {
    const runs = new RunRepository(db.prisma);
    const { body: run } = await call('POST', '/runs', { name: 'stopping-then-done' });
    await runs.setStatus(run.id, 'running');
    expect((await call('POST', `/runs/${run.id}/stop`)).body.status).toBe('stopping');
    const done = await runs.setStatus(run.id, 'completed');
    expect(done.status).toBe('completed');
    expect(done.finishedAt).toBeInstanceOf(Date);
  });
});

/** One request to `port` on 127.0.0.1 with a `Host` header of our choosing, which fetch does not let a caller set. */
function requestWithHost(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, setHost: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: text === '' ? undefined : JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('without a token, only requests addressed to loopback or ADMIN_ALLOWED_HOSTS are answered (issue 52)', () => {
  const json = { 'content-type': 'application/json' };

  it('refuses the DNS-rebinding reproduction (Host and Origin evil.example) with 421 naming the host, creating nothing', async () => {
    const before = (await call('GET', '/runs')).body.length;
    const evil = { host: 'evil.example:8080', origin: 'http://evil.example:8080' };
    const created = await requestWithHost(h.api.port, 'POST', '/runs', { ...evil, ...json }, '{"name":"x"}');
    expect(created.status).toBe(421);
    expect(created.body).toMatchObject({ code: 'MISDIRECTED_REQUEST', details: { host: 'evil.example:8080' } });
    expect(created.body.message).toMatch(/Host "evil\.example:8080" is not served.*ADMIN_ALLOWED_HOSTS/);
    const { body: run } = await call('POST', '/runs', { name: 'rebinding' });
    expect((await requestWithHost(h.api.port, 'POST', `/runs/${run.id}/stop`, evil)).status).toBe(421);
    for (const path of ['/runs', `/runs/${run.id}`, '/queues', '/health', '/']) {
      expect((await requestWithHost(h.api.port, 'GET', path, { host: 'evil.example:8080' })).status, path).toBe(421);
    }
    expect((await call('GET', `/runs/${run.id}`)).body.status).toBe('pending');
    expect((await call('GET', '/runs')).body.length).toBe(before + 1);
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', '127.0.0.1:8080', 'LOCALHOST:1'])('answers Host %s', async (host) => {
    expect((await requestWithHost(h.api.port, 'GET', '/runs', { host })).status).toBe(200);
  });

  it('answers a name listed in ADMIN_ALLOWED_HOSTS, on any port, and no other', async () => {
    const tunnel = await startHarness(db.url, { LOG_LEVEL: 'silent', ADMIN_ALLOWED_HOSTS: 'admin.internal' });
    try {
      expect((await requestWithHost(tunnel.api.port, 'GET', '/runs', { host: 'admin.internal:9' })).status).toBe(200);
      expect((await requestWithHost(tunnel.api.port, 'GET', '/runs', { host: 'evil.example' })).status).toBe(421);
    } finally {
      await tunnel.close();
    }
    expect(() => loadConfig({ ADMIN_ALLOWED_HOSTS: 'admin.internal:8080' })).toThrow(/ADMIN_ALLOWED_HOSTS="admin/);
  });

  it('with a token, leaves Host alone (a page cannot send the Authorization header)', async () => {
    const token = 'a-token-of-thirty-two-characters';
    const guarded = await startHarness(db.url, { LOG_LEVEL: 'silent', ADMIN_TOKEN: token });
    try {
      const headers = { host: 'admin.example.com', authorization: `Bearer ${token}` };
      expect((await requestWithHost(guarded.api.port, 'GET', '/runs', headers)).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});

describe('request bodies that are not UTF-8 are refused (issue 52)', () => {
  it('answers a checkpoint with a 0xff byte 400 INVALID_TEXT and stores nothing, where it stored "data/\ufffd"', async () => {
    const before = (await call('GET', '/runs')).body.length;
    const body = Buffer.concat([
      Buffer.from('{"name":"bytes","model":{"checkpoint":"data/'),
      Buffer.from([0xff]),
      Buffer.from('"}}'),
    ]);
    const reply = await fetch(`${h.baseUrl}/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(reply.status).toBe(400);
    expect(await reply.json()).toEqual({ code: 'INVALID_TEXT', message: 'request body is not valid UTF-8' });
    for (const bytes of [
      [0xc3, 0x28],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xc0, 0xaf],
    ]) {
      const evals = await fetch(`${h.baseUrl}/evals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat([Buffer.from('{"checkpoint":"'), Buffer.from(bytes), Buffer.from('"}')]),
      });
      expect(evals.status, bytes.join(',')).toBe(400);
    }
    expect((await call('GET', '/runs')).body.length).toBe(before);
  });
});

describe('safe defaults of the listening address and the token', () => {
  const nonLoopbackIPv4 = Object.values(networkInterfaces())
    .flat()
    .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;

  it('without ADMIN_TOKEN listens on 127.0.0.1 only and says so', async () => {
    const open = await startHarness(db.url, { HOST: '', LOG_LEVEL: 'info' });
    try {
      const address = (open.api.app.getHttpServer().address() as AddressInfo).address;
      expect(address).toBe('127.0.0.1');
      const lines = open.logs.map((l) => JSON.parse(l));
      expect(lines).toContainEqual(
        expect.objectContaining({ msg: 'admin-api listening', host: '127.0.0.1', auth: 'off' }),
      );
      expect(lines).toContainEqual(
        expect.objectContaining({
          level: 'warn',
          msg: expect.stringMatching(/no ADMIN_TOKEN: .*loopback \(127\.0\.0\.1\) only/),
        }),
      );
      if (nonLoopbackIPv4 !== undefined) {
        await expect(fetch(`http://${nonLoopbackIPv4}:${open.api.port}/health`)).rejects.toThrow();
      }
    } finally {
      await open.close();
    }
  });

  it('refuses a non-loopback HOST without a token, naming ADMIN_TOKEN, and allows it with one', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'admin.example']) {
      expect(() => loadConfig({ HOST: host })).toThrow(ConfigError);
      expect(() => loadConfig({ HOST: host })).toThrow(
        new RegExp(
          `ADMIN_TOKEN is required \\(required to listen on HOST=${host.replace(/\./g, '\\.')}, which is not loopback`,
        ),
      );
    }
    for (const host of ['127.0.0.1', '127.0.0.2', '::1', 'localhost', '[::1]']) {
      expect(loadConfig({ HOST: host }).HOST).toBe(host);
    }
    expect(loadConfig({ HOST: '0.0.0.0', ADMIN_TOKEN: 'a-token-of-16-chars' }).HOST).toBe('0.0.0.0');
    expect(loadConfig({ HOST: '0.0.0.0', ADMIN_TOKEN_FILE: '/run/secrets/admin-token' }).HOST).toBe('0.0.0.0');
  });

  it('with a token and no HOST listens on every interface', async () => {
    const guarded = await startHarness(db.url, { HOST: '', ADMIN_TOKEN: 'a-token-of-16-chars', LOG_LEVEL: 'silent' });
    try {
      expect((guarded.api.app.getHttpServer().address() as AddressInfo).address).toMatch(/^(0\.0\.0\.0|::)$/);
      expect((await request(guarded.baseUrl, 'GET', '/runs')).status).toBe(401);
    } finally {
      await guarded.close();
    }
  });

  it('generates ADMIN_TOKEN_FILE when missing (mode 0600), keeps it across restarts, refuses a short one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-admin-token-'));
    const file = join(dir, 'secrets', 'admin-token');
    try {
      const first = await startHarness(db.url, { ADMIN_TOKEN_FILE: file, LOG_LEVEL: 'info' });
      const token = readFileSync(file, 'utf8').trim();
      await first.close();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(first.logs.join('\n')).toMatch(/generated an admin token/);
      expect(first.logs.join('\n')).not.toContain(token);
      const second = await startHarness(db.url, { ADMIN_TOKEN_FILE: file, LOG_LEVEL: 'silent' });
      try {
        expect((await request(second.baseUrl, 'GET', '/runs')).status).toBe(401);
        expect((await request(second.baseUrl, 'GET', '/runs', { token })).status).toBe(200);
      } finally {
        await second.close();
      }
      writeFileSync(file, 'short\n');
      const config = loadConfig({ ADMIN_TOKEN_FILE: file, DATABASE_URL: db.url, HTTP_PORT: '0', LOG_LEVEL: 'silent' });
      await expect(startAdminApi(config)).rejects.toThrow(/ADMIN_TOKEN_FILE=.*must be at least 16 characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
