import { status } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvGrpcClient, get, post, startHarness, WsClient, type Harness, type Json } from '../test-support/harness';

/**
 * Sessions belong to whoever opened them (issue 17): a WebSocket connection's episode answers only that connection,
 * an open id is never closed and reused by another client's reset, concurrent resets of one id have one winner, and
 * every open episode, done or not, holds capacity until it is closed.
 */

const TASK = { context: 'The vault code is 5521.', question: 'What is the vault code?', answer: '5521' };
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

/** The gRPC status of a failed call (null when it succeeded). */
function grpcCode(client: EnvGrpcClient, method: 'Reset' | 'Step' | 'State' | 'Close', request: unknown) {
  return client.call(method, request).then(
    () => null,
    (e: { code: number; details: string }) => e.code,
  );
}

function toolCall(id: number, sessionId: string): Json {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'run_code', arguments: { code: 'print(secret)' }, session_id: sessionId },
  };
}

describe('a WebSocket episode belongs to its connection', () => {
  it('HTTP, MCP, gRPC and another connection cannot step, read, close or reset it; its owner goes on unharmed', async () => {
    const victim = await WsClient.connect(h.wsUrl);
    const opened = await victim.request({ type: 'reset', data: TASK });
    const id: string = opened.data.observation.episode_id;
    await victim.request({ type: 'step', data: { action: { code: 'var secret = "mine"' } } });

    // HTTP: 403 for step, state and close; 409 for a reset naming the id.
    const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(secret)' } });
    expect(step.status).toBe(403);
    expect(step.body).toMatchObject({ code: 'EPISODE_FORBIDDEN', message: expect.stringContaining(id) });
    expect((await get(h.baseUrl, `/state?episode_id=${id}`)).status).toBe(403);
    expect((await post(h.baseUrl, '/close', { episode_id: id })).status).toBe(403);
    const reset = await post(h.baseUrl, '/reset', { ...TASK, episode_id: id });
    expect(reset.status).toBe(409);
    expect(reset.body.code).toBe('EPISODE_EXISTS');

    // MCP over HTTP and over another WebSocket connection.
    const mcp = await post(h.baseUrl, '/mcp', toolCall(1, id));
    expect(mcp.body.error).toMatchObject({ code: -32000, data: { code: 'EPISODE_FORBIDDEN' } });
    const intruder = await WsClient.connect(h.wsUrl);
    const viaWs = await intruder.request({ type: 'mcp', data: toolCall(2, id) });
    expect(viaWs.data.error.data.code).toBe('EPISODE_FORBIDDEN');
    const closeViaWs = await intruder.request({
      type: 'mcp',
      data: { jsonrpc: '2.0', id: 3, method: 'openenv/session/close', params: { session_id: id } },
    });
    expect(closeViaWs.data.error.data.code).toBe('EPISODE_FORBIDDEN');
    const resetViaWs = await intruder.request({ type: 'reset', data: { ...TASK, episode_id: id } });
    expect(resetViaWs).toMatchObject({ type: 'error', data: { code: 'SESSION_ERROR', reason: 'EPISODE_EXISTS' } });
    await intruder.close();

    // gRPC: PERMISSION_DENIED for step, state and close; ALREADY_EXISTS for a reset naming the id.
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      expect(await grpcCode(client, 'Step', { episode_id: id, code: 'print(secret)' })).toBe(status.PERMISSION_DENIED);
      expect(await grpcCode(client, 'State', { episode_id: id })).toBe(status.PERMISSION_DENIED);
      expect(await grpcCode(client, 'Close', { episode_id: id })).toBe(status.PERMISSION_DENIED);
      expect(await grpcCode(client, 'Reset', { ...TASK, episode_id: id })).toBe(status.ALREADY_EXISTS);
    } finally {
      client.close();
    }

    // The owner's episode is the one it opened: same id, its variable intact, only its own step counted.
    const own = await victim.request({ type: 'step', data: { action: { code: 'print(secret)' } } });
    expect(own.data.observation).toMatchObject({ episode_id: id, stdout: 'mine\n', step: 2 });
    expect((await victim.request({ type: 'state' })).data).toMatchObject({ episode_id: id, step_count: 2 });
    await victim.close();
  });
});

describe('HTTP and gRPC episodes', () => {
  it('get a random id from the server; a reset naming an open id is refused and leaves the episode open', async () => {
    const first = await post(h.baseUrl, '/reset', TASK);
    const second = await post(h.baseUrl, '/reset', TASK);
    const id: string = first.body.observation.episode_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.body.observation.episode_id).not.toBe(id);
    await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' } });

    const again = await post(h.baseUrl, '/reset', { ...TASK, episode_id: id });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already open/);
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      expect(await grpcCode(client, 'Reset', { ...TASK, episode_id: id })).toBe(status.ALREADY_EXISTS);
      const chosen = await client.call('Reset', { ...TASK, episode_id: `chosen-${id}` });
      expect(chosen.observation.episode_id).toBe(`chosen-${id}`);
      expect(await grpcCode(client, 'Reset', { ...TASK, episode_id: `chosen-${id}` })).toBe(status.ALREADY_EXISTS);
      await client.call('Close', { episode_id: `chosen-${id}` });
    } finally {
      client.close();
    }
    expect((await get(h.baseUrl, `/state?episode_id=${id}`)).body).toMatchObject({ episode_id: id, step_count: 1 });
    for (const reply of [first, second]) {
      expect((await post(h.baseUrl, '/close', { episode_id: reply.body.observation.episode_id })).status).toBe(200);
    }
  });

  it('of 25 concurrent resets of one id, 1 succeeds and 24 are 409', async () => {
    const episode_id = 'contested';
    const replies = await Promise.all(
      Array.from({ length: 25 }, () => post(h.baseUrl, '/reset', { ...TASK, episode_id })),
    );
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, ...Array.from({ length: 24 }, () => 409)]);
    expect(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'EPISODE_EXISTS')).toBe(true);
    await post(h.baseUrl, '/close', { episode_id });
  });

  it('of 25 concurrent gRPC resets of one id, 1 succeeds and 24 are ALREADY_EXISTS', async () => {
    const episode_id = 'contested-grpc';
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const codes = await Promise.all(
        Array.from({ length: 25 }, () => grpcCode(client, 'Reset', { ...TASK, episode_id })),
      );
      expect(codes.filter((code) => code === null)).toHaveLength(1);
      expect(codes.filter((code) => code === status.ALREADY_EXISTS)).toHaveLength(24);
      await client.call('Close', { episode_id });
    } finally {
      client.close();
    }
  });
});

describe('capacity counts every open episode', () => {
  let small: Harness;

  beforeAll(async () => {
    small = await startHarness({ MAX_CONCURRENT_ENVS: '1' });
  });

  afterAll(async () => {
    await small.close();
  });

  it('a done but unclosed episode holds its slot until it is closed', async () => {
    const id = (await post(small.baseUrl, '/reset', TASK)).body.observation.episode_id;
    const answered = await post(small.baseUrl, '/step', { episode_id: id, action: { answer: '5521' } });
    expect(answered.body).toMatchObject({ done: true, reward: expect.any(Number) });
    expect((await get(small.baseUrl, '/capabilities')).body.active_sessions).toBe(1);
    const refused = await post(small.baseUrl, '/reset', TASK);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('CAPACITY_REACHED');

    await post(small.baseUrl, '/close', { episode_id: id });
    const fresh = await post(small.baseUrl, '/reset', TASK);
    expect(fresh.status).toBe(200);
    await post(small.baseUrl, '/close', { episode_id: fresh.body.observation.episode_id });
  });
});
