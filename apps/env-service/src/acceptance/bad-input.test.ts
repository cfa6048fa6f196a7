import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvGrpcClient, get, post, startHarness, WsClient, type Harness } from '../test-support/harness';

/** Bad input on every endpoint: 4xx / INVALID_ARGUMENT-family gRPC statuses / WS error replies, never a 5xx. */

const LIMIT = 64 * 1024;
const TASK = { context: 'The vault code is 4417. '.repeat(20), question: 'What is the vault code?', answer: '4417' };
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ MAX_BODY_BYTES: String(LIMIT) });
});

afterAll(async () => {
  await h.close();
});

async function expectHealthy() {
  expect((await get(h.baseUrl, '/health')).body).toEqual({ status: 'healthy' });
}

describe('HTTP bad input', () => {
  const cases: [string, string, unknown, boolean, number, string][] = [
    ['malformed JSON on /reset', '/reset', '{"seed": 1,', true, 400, 'INVALID_JSON'],
    ['malformed JSON on /step', '/step', '{"action": {', true, 400, 'INVALID_JSON'],
    ['a JSON scalar body', '/step', '42', true, 400, 'INVALID_JSON'],
    ['wrong type for seed', '/reset', { seed: 'seven' }, false, 422, 'VALIDATION_ERROR'],
    ['negative seed', '/reset', { seed: -1 }, false, 422, 'VALIDATION_ERROR'],
    ['inline task fields without a context', '/reset', { question: 'q', answer: 'a' }, false, 422, 'VALIDATION_ERROR'],
    ['both question and task_prompt', '/reset', { ...TASK, task_prompt: 'q' }, false, 422, 'VALIDATION_ERROR'],
    ['aliases without a gold answer', '/reset', { context: 'x', aliases: ['y'] }, false, 422, 'VALIDATION_ERROR'],
    ['unknown split', '/reset', { split: 'test' }, false, 422, 'VALIDATION_ERROR'],
    ['no dataset configured', '/reset', { split: 'train', seed: 1 }, false, 404, 'TASK_NOT_FOUND'],
    ['step without an action', '/step', { episode_id: 'e' }, false, 422, 'VALIDATION_ERROR'],
    [
      'step with both code and answer',
      '/step',
      { episode_id: 'e', action: { code: '1', answer: '2' } },
      false,
      422,
      'VALIDATION_ERROR',
    ],
    ['step with an empty action', '/step', { episode_id: 'e', action: {} }, false, 422, 'VALIDATION_ERROR'],
    ['step with empty code', '/step', { episode_id: 'e', action: { code: '' } }, false, 422, 'VALIDATION_ERROR'],
    [
      'step with an unknown action field',
      '/step',
      { episode_id: 'e', action: { code: '1', language: 'python' } },
      false,
      422,
      'VALIDATION_ERROR',
    ],
    [
      'REPLEnv final step with "answer" instead of "final_answer"',
      '/step',
      { episode_id: 'e', action: { is_final: true, answer: '2' } },
      false,
      422,
      'VALIDATION_ERROR',
    ],
    [
      'step with code of the wrong type',
      '/step',
      { episode_id: 'e', action: { code: 5 } },
      false,
      422,
      'VALIDATION_ERROR',
    ],
    [
      'step with a negative timeout',
      '/step',
      { episode_id: 'e', action: { code: '1' }, timeout_s: -1 },
      false,
      422,
      'VALIDATION_ERROR',
    ],
    [
      'step on an unknown episode (step before reset)',
      '/step',
      { episode_id: 'nope', action: { code: '1' } },
      false,
      404,
      'EPISODE_NOT_FOUND',
    ],
    ['close of an unknown episode', '/close', { episode_id: 'nope' }, false, 404, 'EPISODE_NOT_FOUND'],
  ];

  it.each(cases)('%s', async (_name, path, body, raw, status, code) => {
    const res = await post(h.baseUrl, path, body, raw);
    expect(res.status).toBe(status);
    expect(res.body.code).toBe(code);
    expect(typeof res.body.message).toBe('string');
    expect(res.body.message.length).toBeGreaterThan(10);
  });

  it('lists each validation issue with its location, as OpenEnv does', async () => {
    const res = await post(h.baseUrl, '/step', { episode_id: 7, action: { code: 5 } });
    expect(res.status).toBe(422);
    const locations = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locations).toEqual(expect.arrayContaining(['body.episode_id', 'body.action.code']));
  });

  it('a body over the size limit is 413', async () => {
    const res = await post(h.baseUrl, '/reset', { ...TASK, context: 'x'.repeat(LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it("accepts and ignores unknown reset and step fields, as OpenEnv's request models allow extras", async () => {
    const reset = await post(h.baseUrl, '/reset', { ...TASK, sed: 1, hf_token: 'secret', llm_model: 'm' });
    expect(reset.status).toBe(200);
    const id = reset.body.observation.episode_id;
    const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' }, render: true });
    expect(step.status).toBe(200);
    expect(step.body.observation.stdout).toBe('1\n');
    await post(h.baseUrl, '/close', { episode_id: id });
  });

  it('GET /state with an unknown or empty episode_id is 404 / 422; unknown routes are 404', async () => {
    expect((await get(h.baseUrl, '/state?episode_id=')).status).toBe(422);
    expect((await get(h.baseUrl, '/state?episode_id=missing')).status).toBe(404);
    const route = await get(h.baseUrl, '/nowhere');
    expect(route.status).toBe(404);
    expect(route.body.code).toBe('ROUTE_NOT_FOUND');
    await expectHealthy();
  });
});

describe('MCP bad input', () => {
  it('malformed JSON is a JSON-RPC parse error with HTTP 200, as OpenEnv answers', async () => {
    const res = await post(h.baseUrl, '/mcp', '{"jsonrpc": "2.0", "id": 1,', true);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('a request that is not JSON-RPC 2.0, or a batch, is an invalid-request error with HTTP 200', async () => {
    for (const body of [
      {},
      { id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 1, method: 5 },
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
    ]) {
      const res = await post(h.baseUrl, '/mcp', body);
      expect(res.status).toBe(200);
      expect(res.body.jsonrpc).toBe('2.0');
      expect(res.body.error.code).toBe(-32600);
    }
  });

  it('unknown methods, unknown tools, bad arguments and unknown sessions are JSON-RPC errors', async () => {
    const rpc = async (method: string, params?: unknown) =>
      (await post(h.baseUrl, '/mcp', { jsonrpc: '2.0', id: 9, method, params })).body;
    expect((await rpc('tools/launch')).error.code).toBe(-32601);
    expect((await rpc('tools/call', { name: 'rm_rf', arguments: {} })).error.code).toBe(-32602);
    expect((await rpc('tools/call', { name: 'run_code', arguments: { code: 42 }, session_id: 's' })).error.code).toBe(
      -32602,
    );
    const ghost = await rpc('tools/call', { name: 'run_code', arguments: { code: '1' }, session_id: 'ghost' });
    expect(ghost.error).toMatchObject({ code: -32602, data: { code: 'EPISODE_NOT_FOUND' } });
    expect((await rpc('openenv/session/close', { session_id: 'ghost' })).error.code).toBe(-32602);
    expect((await rpc('openenv/session/create', { seed: 'x' })).error.code).toBe(-32602);
    expect((await rpc('openenv/session/close', {})).error.code).toBe(-32602);
    const big = await post(h.baseUrl, '/mcp', {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(LIMIT) },
    });
    expect(big.status).toBe(413);
    await expectHealthy();
  });
});

describe('WebSocket bad input', () => {
  it('answers each bad message with an error reply and keeps the connection usable', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const expectError = async (message: unknown, code: string, reason?: string) => {
      const reply = await ws.request(message);
      expect(reply.type).toBe('error');
      expect(reply.data.code).toBe(code);
      if (reason) expect(reply.data.reason).toBe(reason);
      expect(reply.data.message.length).toBeGreaterThan(10);
    };
    await expectError('{"type": "reset",', 'INVALID_JSON');
    await expectError({ type: 'jump', data: {} }, 'UNKNOWN_TYPE');
    await expectError({ kind: 'reset' }, 'VALIDATION_ERROR');
    await expectError({ type: 'step', data: { action: { code: '1' } } }, 'SESSION_ERROR', 'NO_ACTIVE_EPISODE');
    await expectError({ type: 'step', data: { code: '1' } }, 'SESSION_ERROR', 'NO_ACTIVE_EPISODE');
    await expectError({ type: 'step' }, 'VALIDATION_ERROR');
    await expectError({ type: 'state' }, 'SESSION_ERROR', 'NO_ACTIVE_EPISODE');
    await expectError({ type: 'reset', data: { seed: 'x' } }, 'VALIDATION_ERROR');
    await expectError(
      { type: 'reset', data: { ...TASK, context: 'x'.repeat(LIMIT) } },
      'VALIDATION_ERROR',
      'PAYLOAD_TOO_LARGE',
    );

    const reset = await ws.request({ type: 'reset', data: TASK });
    expect(reset.type).toBe('observation');
    await expectError({ type: 'step', data: { action: { code: 1 } } }, 'VALIDATION_ERROR');
    await expectError({ type: 'step', data: { code: 1 } }, 'VALIDATION_ERROR');
    await expectError({ type: 'step', data: { code: '1', is_final: 'yes' } }, 'VALIDATION_ERROR');
    await expectError({ type: 'step', data: { episode_id: 'x', action: { code: '1' } } }, 'VALIDATION_ERROR');
    await expectError(
      { type: 'mcp', data: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, extra: 1 },
      'VALIDATION_ERROR',
    );
    const done = await ws.request({ type: 'step', data: { action: { answer: '4417' } } });
    expect(done.data.done).toBe(true);
    await expectError({ type: 'step', data: { action: { code: 'print(1)' } } }, 'SESSION_ERROR', 'EPISODE_DONE');
    expect((await ws.request({ type: 'state' })).data.done).toBe(true);
    await ws.close();
    await expectHealthy();
  });

  it('WebSocket /mcp answers bad JSON-RPC with JSON-RPC errors and keeps the connection usable', async () => {
    const ws = await WsClient.connect(h.wsUrl.replace('/ws', '/mcp'));
    expect((await ws.request('{"jsonrpc": "2.0",')).error.code).toBe(-32700);
    expect((await ws.request({ id: 1, method: 'tools/list' })).error.code).toBe(-32600);
    expect((await ws.request({ jsonrpc: '2.0', id: 2, method: 'tools/launch' })).error.code).toBe(-32601);
    const listed = await ws.request({ jsonrpc: '2.0', id: 3, method: 'tools/list' });
    expect(listed).toMatchObject({ jsonrpc: '2.0', id: 3 });
    expect(listed.result.tools).toHaveLength(2);
    await ws.close();
    await expectHealthy();
  });

  it('an upgrade on another path is refused', async () => {
    await expect(WsClient.connect(h.wsUrl.replace('/ws', '/other'))).rejects.toThrow();
  });
});

describe('gRPC bad input', () => {
  it('maps each bad request to a status with a clear message', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    const expectStatus = async (
      method: 'Reset' | 'Step' | 'State' | 'Close',
      request: unknown,
      code: number,
      text: RegExp,
    ) => {
      const error = await client.call(method, request).then(
        () => null,
        (e: { code: number; details: string }) => e,
      );
      expect(error).not.toBeNull();
      expect(error!.code).toBe(code);
      expect(error!.details).toMatch(text);
    };
    try {
      // 3 INVALID_ARGUMENT, 5 NOT_FOUND, 8 RESOURCE_EXHAUSTED, 9 FAILED_PRECONDITION
      await expectStatus('Step', { episode_id: '', code: '1' }, 3, /episode_id/);
      await expectStatus('Step', { episode_id: 'e' }, 3, /exactly one of "code" or "answer"/);
      await expectStatus('Reset', { question: 'no context' }, 3, /inline task needs "context"/);
      await expectStatus('Reset', { split: 'nope' }, 3, /split/);
      await expectStatus('Reset', { task_id: 'missing' }, 5, /task "missing" not found/);
      await expectStatus('Step', { episode_id: 'ghost', code: '1' }, 5, /episode "ghost" not found/);
      await expectStatus('State', { episode_id: 'ghost' }, 5, /not found/);
      await expectStatus('Close', { episode_id: 'ghost' }, 5, /not found/);
      await expectStatus('Reset', { ...TASK, context: 'x'.repeat(LIMIT + 1) }, 8, /larger than max/);

      const reset = await client.call('Reset', TASK);
      const id = reset.observation.episode_id;
      await client.call('Step', { episode_id: id, answer: '4417' });
      await expectStatus('Step', { episode_id: id, code: 'print(1)' }, 9, /has ended/);
      await client.call('Close', { episode_id: id });
    } finally {
      client.close();
    }
    await expectHealthy();
  });
});

describe('inference endpoint down', () => {
  it('a failing llm() is an error inside the guest, not a transport error; the service stays healthy', async () => {
    const reset = await post(h.baseUrl, '/reset', TASK);
    await h.inference.stop();
    const step = await post(h.baseUrl, '/step', {
      episode_id: reset.body.observation.episode_id,
      action: { code: 'try { llm("q", "chunk"); } catch (e) { print(e.name, e.message); }' },
    });
    expect(step.status).toBe(200);
    expect(step.body.observation.error).toBeNull();
    expect(step.body.observation.stdout).toMatch(/llm\(\) failed: .*(UNAVAILABLE|ECONNREFUSED)/);
    expect(step.body.observation.llm_calls).toBe(0);
    await expectHealthy();
  });
});
