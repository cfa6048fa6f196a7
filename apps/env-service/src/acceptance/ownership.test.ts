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

    // HTTP: 403 for step, state and close; a reset naming any id is refused (ids are the server's outside a session).
    const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(secret)' } });
    expect(step.status).toBe(403);
    expect(step.body).toMatchObject({ code: 'EPISODE_FORBIDDEN', message: expect.stringContaining(id) });
    expect((await get(h.baseUrl, `/state?episode_id=${id}`)).status).toBe(403);
    expect((await post(h.baseUrl, '/close', { episode_id: id })).status).toBe(403);
    const reset = await post(h.baseUrl, '/reset', { ...TASK, episode_id: id });
    expect(reset.status).toBe(422);
    expect(reset.body.code).toBe('VALIDATION_ERROR');

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

    // gRPC: PERMISSION_DENIED for step, state and close; ALREADY_EXISTS for a Session's reset naming the id.
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      expect(await grpcCode(client, 'Step', { episode_id: id, code: 'print(secret)' })).toBe(status.PERMISSION_DENIED);
      expect(await grpcCode(client, 'State', { episode_id: id })).toBe(status.PERMISSION_DENIED);
      expect(await grpcCode(client, 'Close', { episode_id: id })).toBe(status.PERMISSION_DENIED);
      const session = client.session();
      const viaSession = await session.request({ reset: { ...TASK, episode_id: id } });
      expect(viaSession.error).toMatchObject({ status: status.ALREADY_EXISTS, reason: 'EPISODE_EXISTS' });
      session.stream.end();
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
  it('get a random id from the server; a reset naming an id is refused and leaves the episode open', async () => {
    const first = await post(h.baseUrl, '/reset', TASK);
    const second = await post(h.baseUrl, '/reset', TASK);
    const id: string = first.body.observation.episode_id;
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.body.observation.episode_id).not.toBe(id);
    await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' } });

    const again = await post(h.baseUrl, '/reset', { ...TASK, episode_id: id });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/server assigns episode ids/);
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      expect(await grpcCode(client, 'Reset', { ...TASK, episode_id: id })).toBe(status.INVALID_ARGUMENT);
      expect(await grpcCode(client, 'Reset', { ...TASK, episode_id: `chosen-${id}` })).toBe(status.INVALID_ARGUMENT);
    } finally {
      client.close();
    }
    expect((await get(h.baseUrl, `/state?episode_id=${id}`)).body).toMatchObject({ episode_id: id, step_count: 1 });
    for (const reply of [first, second]) {
      expect((await post(h.baseUrl, '/close', { episode_id: reply.body.observation.episode_id })).status).toBe(200);
    }
  });

  it('a chosen id ("alice") is held by the connection that chose it: no other client closes or resets it', async () => {
    // Over HTTP (and unary gRPC, MCP over HTTP) a chosen id was anyone's: another client could close "alice" and
    // reset it, and the first client then stepped into the other's episode (issue 52).
    const overHttp = await post(h.baseUrl, '/reset', { ...TASK, episode_id: 'alice' });
    expect(overHttp.status).toBe(422);
    expect(overHttp.body.message).toMatch(/episode_id "alice" refused: over http the server assigns episode ids/);
    const mcp = await post(h.baseUrl, '/mcp', {
      jsonrpc: '2.0',
      id: 1,
      method: 'openenv/session/create',
      params: { ...TASK, episode_id: 'alice' },
    });
    expect(mcp.body.error.data.code).toBe('VALIDATION_ERROR');

    const alice = await WsClient.connect(h.wsUrl);
    const opened = await alice.request({ type: 'reset', data: { ...TASK, episode_id: 'alice' } });
    expect(opened.data.observation.episode_id).toBe('alice');
    await alice.request({ type: 'step', data: { action: { code: 'var secret = "alice\'s"' } } });

    expect((await post(h.baseUrl, '/close', { episode_id: 'alice' })).status).toBe(403);
    expect((await post(h.baseUrl, '/reset', { ...TASK, episode_id: 'alice' })).status).toBe(422);
    const mallory = await WsClient.connect(h.wsUrl);
    const taken = await mallory.request({ type: 'reset', data: { ...TASK, episode_id: 'alice' } });
    expect(taken).toMatchObject({ type: 'error', data: { reason: 'EPISODE_EXISTS' } });
    await mallory.close();

    const own = await alice.request({ type: 'step', data: { action: { code: 'print(secret)' } } });
    expect(own.data.observation).toMatchObject({ episode_id: 'alice', stdout: "alice's\n", step: 2 });
    await alice.close();
  });

  it('of 25 concurrent WebSocket resets of one id, 1 succeeds and 24 are EPISODE_EXISTS', async () => {
    const clients = await Promise.all(Array.from({ length: 25 }, () => WsClient.connect(h.wsUrl)));
    const replies = await Promise.all(
      clients.map((client) => client.request({ type: 'reset', data: { ...TASK, episode_id: 'contested' } })),
    );
    expect(replies.filter((r) => r.type === 'observation')).toHaveLength(1);
    expect(replies.filter((r) => r.type === 'error' && r.data.reason === 'EPISODE_EXISTS')).toHaveLength(24);
    await Promise.all(clients.map((client) => client.close()));
  });

  it('of 25 concurrent gRPC Session resets of one id, 1 succeeds and 24 are ALREADY_EXISTS', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const sessions = Array.from({ length: 25 }, () => client.session());
      const replies = await Promise.all(
        sessions.map((session) => session.request({ reset: { ...TASK, episode_id: 'contested-grpc' } })),
      );
      expect(replies.filter((reply) => reply.observation !== undefined && reply.observation !== null)).toHaveLength(1);
      expect(replies.filter((reply) => reply.error?.status === status.ALREADY_EXISTS)).toHaveLength(24);
      for (const session of sessions) session.stream.end();
      await Promise.all(sessions.map((session) => session.status));
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
