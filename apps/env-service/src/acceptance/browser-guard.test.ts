import { OpenEnvSandbox } from '@fathom/sandbox';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { get, post, startHarness, WsClient, type Harness, type Json } from '../test-support/harness';

/**
 * Web pages cannot drive the env-service (issue 52): a request or WebSocket upgrade from another page's Origin is
 * refused unless that origin is configured, a loopback-bound service answers only loopback or configured `Host`
 * names (DNS rebinding), OPENENV_TOKEN guards the OpenEnv routes when set, and a body that is not UTF-8 is refused.
 * Clients that send no Origin (upstream's, FATHOM's own) are not affected.
 */

const TASK = { context: 'The vault code is 5521.', question: 'What is the vault code?', answer: '5521' };
const TOKEN = 'openenv-token-of-32-characters!!';

/** One HTTP request to 127.0.0.1:`port` with any headers (fetch does not let a caller set Host). */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<{ status: number; body: Json; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method, path, headers, setHost: !('host' in headers) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // HTML or text: kept as is.
          }
          resolve({ status: res.statusCode!, body: parsed, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** How a WebSocket upgrade ended: "open", or the HTTP status and JSON body it was refused with. */
function upgrade(url: string, headers: Record<string, string>): Promise<{ status: number | 'open'; body?: Json }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('open', () => {
      socket.close();
      resolve({ status: 'open' });
    });
    socket.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    socket.once('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}

describe('with no configuration (loopback, no token)', () => {
  let h: Harness;
  let port: number;
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    h = await startHarness();
    port = h.service.httpPort;
  });

  afterAll(async () => {
    await h.close();
  });

  it("refuses another page's text/plain POST /reset with 403 naming the origin, and opens no session", async () => {
    const reply = await raw(
      port,
      'POST',
      '/reset',
      { origin: 'http://evil.example', 'content-type': 'text/plain' },
      JSON.stringify(TASK),
    );
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ code: 'FORBIDDEN_ORIGIN', detail: { origin: 'http://evil.example' } });
    expect(reply.body.message).toMatch(/"http:\/\/evil\.example" are refused; list it in ENV_ALLOWED_ORIGINS/);
    for (const path of ['/step', '/close', '/mcp', '/v1/chat/completions']) {
      const refused = await raw(port, 'POST', path, { origin: 'http://evil.example', ...json }, '{}');
      expect(refused.status, path).toBe(403);
    }
    expect((await raw(port, 'GET', '/state', { origin: 'null' })).status).toBe(403);
    expect((await get(h.baseUrl, '/capabilities')).body.active_sessions).toBe(0);
  });

  it("refuses another page's WebSocket upgrade on /ws and /mcp with 403, and accepts clients without Origin", async () => {
    for (const path of ['/ws', '/mcp']) {
      const refused = await upgrade(`ws://127.0.0.1:${port}${path}`, { origin: 'http://evil.example' });
      expect(refused, path).toMatchObject({ status: 403, body: { code: 'FORBIDDEN_ORIGIN' } });
    }
    expect((await get(h.baseUrl, '/capabilities')).body.active_sessions).toBe(0);
    const client = await WsClient.connect(h.wsUrl);
    const reset = await client.request({ type: 'reset', data: TASK });
    expect(reset.type).toBe('observation');
    await client.close();
  });

  it('serves its own loopback origin and clients that send no Origin, as before', async () => {
    const own = `http://127.0.0.1:${port}`;
    const reset = await raw(port, 'POST', '/reset', { origin: own, ...json }, JSON.stringify(TASK));
    expect(reset.status).toBe(200);
    const plain = await post(h.baseUrl, '/reset', TASK);
    expect(plain.status).toBe(200);
    for (const reply of [reset, plain]) {
      await post(h.baseUrl, '/close', { episode_id: reply.body.observation.episode_id });
    }
    expect((await upgrade(`ws://127.0.0.1:${port}/ws`, { origin: own })).status).toBe('open');
    // The page's own origin under another name of the loopback is another origin.
    expect((await raw(port, 'GET', '/metadata', { origin: `http://localhost:${port}` })).status).toBe(403);
  });

  it('answers only loopback Host names when bound to loopback (421 naming the host otherwise)', async () => {
    const rebound = await raw(port, 'GET', '/capabilities', { host: `evil.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.body).toMatchObject({ code: 'MISDIRECTED_REQUEST', detail: { host: `evil.example:${port}` } });
    expect(rebound.body.message).toMatch(/Host "evil\.example:\d+" is not served.*ENV_ALLOWED_HOSTS/);
    const upgraded = await upgrade(`ws://127.0.0.1:${port}/ws`, { host: 'evil.example' });
    expect(upgraded.status).toBe(421);
    for (const host of [`localhost:${port}`, `[::1]:${port}`, '127.0.0.1']) {
      expect((await raw(port, 'GET', '/capabilities', { host })).status, host).toBe(200);
    }
  });

  it('refuses a body that is not UTF-8 with 400 on every HTTP surface', async () => {
    const bad = Buffer.concat([
      Buffer.from('{"context":"data/'),
      Buffer.from([0xff]),
      Buffer.from('","question":"q"}'),
    ]);
    const reset = await raw(port, 'POST', '/reset', json, bad);
    expect(reset.status).toBe(400);
    expect(reset.body).toMatchObject({ code: 'INVALID_JSON', message: 'request body is not valid UTF-8' });
    const chat = await raw(port, 'POST', '/v1/chat/completions', json, bad);
    expect(chat.status).toBe(400);
    expect(chat.body.error.message).toBe('request body is not valid UTF-8');
    // MCP over HTTP answers as JSON-RPC does a body that does not parse: a parse error.
    const mcp = await raw(port, 'POST', '/mcp', json, bad);
    expect(mcp.body.error).toMatchObject({ code: -32700, message: 'request body is not valid UTF-8' });
    expect((await get(h.baseUrl, '/capabilities')).body.active_sessions).toBe(0);
  });
});

describe('with ENV_ALLOWED_ORIGINS, ENV_ALLOWED_HOSTS and OPENENV_TOKEN', () => {
  let h: Harness;
  let port: number;
  const origin = 'https://notebook.example.com';

  beforeAll(async () => {
    h = await startHarness({
      ENV_ALLOWED_ORIGINS: origin,
      ENV_ALLOWED_HOSTS: 'env.internal',
      OPENENV_TOKEN: TOKEN,
    });
    port = h.service.httpPort;
  });

  afterAll(async () => {
    await h.close();
  });

  it('serves the configured origin and host with the token, and refuses without it (401)', async () => {
    const headers = { origin, host: `env.internal:${port}`, 'content-type': 'application/json' };
    const missing = await raw(port, 'POST', '/reset', headers, JSON.stringify(TASK));
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toBe('Bearer');
    expect(missing.body).toMatchObject({ code: 'UNAUTHORIZED', message: expect.stringMatching(/OPENENV_TOKEN/) });
    const wrong = await raw(port, 'POST', '/reset', { ...headers, authorization: 'Bearer nope' }, '{}');
    expect(wrong.body.message).toBe('invalid bearer token');
    const served = await raw(
      port,
      'POST',
      '/reset',
      { ...headers, authorization: `Bearer ${TOKEN}` },
      JSON.stringify(TASK),
    );
    expect(served.status).toBe(200);
    const close = { episode_id: served.body.observation.episode_id };
    const authorization = `Bearer ${TOKEN}`;
    const closed = await raw(
      port,
      'POST',
      '/close',
      { authorization, 'content-type': 'application/json' },
      JSON.stringify(close),
    );
    expect(closed.status).toBe(200);
  });

  it('guards WebSocket upgrades with the token too, and leaves /health and /metrics open', async () => {
    expect(await upgrade(h.wsUrl, {})).toMatchObject({ status: 401, body: { code: 'UNAUTHORIZED' } });
    expect((await upgrade(h.wsUrl, { authorization: `Bearer ${TOKEN}`, origin })).status).toBe('open');
    expect((await upgrade(h.wsUrl, { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' })).status).toBe(
      403,
    );
    expect((await raw(port, 'GET', '/health', {})).status).toBe(200);
    expect((await raw(port, 'GET', '/metrics', {})).status).toBe(200);
    expect((await raw(port, 'GET', '/metadata', {})).status).toBe(401);
  });

  it("lets a rollout worker's OpenEnvSandbox in with the token (its ENV_TOKEN), and not without", async () => {
    const withToken = new OpenEnvSandbox(h.wsUrl, { token: TOKEN });
    const without = new OpenEnvSandbox(h.wsUrl);
    try {
      const episode = await withToken.openEpisode({ ctx: 'The vault code is 5521.', question: 'What is the code?' });
      expect((await episode.run('print(ctx.length)')).stdout.trim()).toBe('23');
      await episode.close();
      await expect(without.openEpisode({ ctx: 'x', question: 'q' })).rejects.toThrow(/401/);
    } finally {
      await Promise.all([withToken.close(), without.close()]);
    }
  });
});
