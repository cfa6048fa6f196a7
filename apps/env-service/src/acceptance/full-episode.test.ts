import { loadService } from '@fathom/rpc';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EnvGrpcClient,
  get,
  longDocument,
  post,
  startHarness,
  WsClient,
  type Harness,
  type Json,
} from '../test-support/harness';

/** A full episode over a 200K-token context through each transport: reset, search, read, llm(), answer, reward. */

const NEEDLE = 'Note for the record: the color of the mirror is teal.';
const CONTEXT = longDocument(200_000, NEEDLE, 0.73);
const TASK = { context: CONTEXT, question: 'What color is the mirror?', answer: 'teal' };
const SEARCH =
  'const m = ctx.match(/color of the mirror is (\\w+)/); print(m ? m[1] : "none"); const hits = m ? 1 : 0;';
const SUBCALL = 'const said = llm("Summarise this", ctx.slice(0, 200)); print(said);';

let h: Harness;

beforeAll(async () => {
  h = await startHarness();
});

afterAll(async () => {
  await h.close();
});

function expectFirstObservation(reply: Json) {
  expect(reply.done).toBe(false);
  expect(reply.reward).toBeNull();
  expect(reply.observation.context_tokens).toBeGreaterThanOrEqual(200_000);
  expect(reply.observation.context_chars).toBe(CONTEXT.length);
  expect(reply.observation.question).toBe(TASK.question);
  expect(reply.observation.step).toBe(0);
}

function expectSearchFound(reply: Json) {
  expect(reply.done).toBe(false);
  expect(reply.observation.error).toBeNull();
  expect(reply.observation.stdout.trim()).toBe('teal');
  expect(reply.observation.variables).toEqual(expect.arrayContaining(['m', 'hits']));
  expect(reply.observation.step).toBe(1);
}

function expectCorrectFinish(reply: Json) {
  expect(reply.done).toBe(true);
  expect(reply.observation.correct).toBe(true);
  // Reward v3: correctness 0.7 alone already puts a correct answer above the wrong-answer cap of 0.25.
  expect(reply.reward).toBeGreaterThan(0.7);
  expect(reply.observation.reward).toBe(reply.reward);
}

describe('full episode over a 200K-token context', () => {
  it('HTTP: reset, search, llm(), state, answer, then stepping a done episode is 409', async () => {
    const reset = await post(h.baseUrl, '/reset', TASK);
    expect(reset.status).toBe(200);
    expectFirstObservation(reset.body);
    const id = reset.body.observation.episode_id;

    const search = await post(h.baseUrl, '/step', { episode_id: id, action: { code: SEARCH } });
    expect(search.status).toBe(200);
    expectSearchFound(search.body);

    const before = h.inference.requests.length;
    const sub = await post(h.baseUrl, '/step', { episode_id: id, action: { code: SUBCALL } });
    expect(sub.body.observation.error).toBeNull();
    expect(sub.body.observation.stdout.trim()).toBe('sub-answer at depth 1');
    expect(sub.body.observation.llm_calls).toBe(1);
    expect(h.inference.requests.length).toBe(before + 1);
    const request = h.inference.requests.at(-1)!;
    expect(request).toMatchObject({ episode_id: id, depth: 1 });
    expect(request.prompt).toContain('Summarise this');
    expect(request.prompt).toContain(CONTEXT.slice(0, 200));

    const state = await get(h.baseUrl, `/state?episode_id=${id}`);
    expect(state.body).toMatchObject({ episode_id: id, step_count: 2, done: false, task_id: 'inline', llm_calls: 1 });

    const answer = await post(h.baseUrl, '/step', { episode_id: id, action: { answer: 'Teal' } });
    expectCorrectFinish(answer.body);

    const after = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' } });
    expect(after.status).toBe(409);
    expect(after.body.code).toBe('EPISODE_DONE');
    // A done episode keeps its state, and its capacity slot, until it is closed.
    expect((await post(h.baseUrl, '/close', { episode_id: id })).status).toBe(200);
  });

  it('HTTP: a code step that calls answer() ends the episode with that value as the answer', async () => {
    const reset = await post(h.baseUrl, '/reset', TASK);
    const id = reset.body.observation.episode_id;
    const code = 'const m = ctx.match(/color of the mirror is (\\w+)/); answer(m[1]); print("answered")';
    const step = await post(h.baseUrl, '/step', { episode_id: id, action: { code } });
    expect(step.status).toBe(200);
    expect(step.body.observation.stdout).toBe('answered\n');
    expectCorrectFinish(step.body);
    const after = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' } });
    expect(after.status).toBe(409);
    await post(h.baseUrl, '/close', { episode_id: id });
  });

  it('WebSocket: reset, search, state, a wrong answer scores at most the cap', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const reset = await ws.request({ type: 'reset', data: TASK });
    expect(reset.type).toBe('observation');
    expectFirstObservation(reset.data);

    const search = await ws.request({ type: 'step', data: { action: { code: SEARCH } } });
    expect(search.type).toBe('observation');
    expectSearchFound(search.data);

    const state = await ws.request({ type: 'state' });
    expect(state).toMatchObject({ type: 'state', data: { step_count: 1, done: false } });

    const wrong = await ws.request({ type: 'step', data: { action: { answer: 'crimson' } } });
    expect(wrong.data.done).toBe(true);
    expect(wrong.data.observation.correct).toBe(false);
    expect(wrong.data.reward).toBeLessThanOrEqual(0.25);
    await ws.close();
  });

  it('WebSocket: a second reset on the same connection starts a fresh episode', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const first = await ws.request({ type: 'reset', data: TASK });
    await ws.request({ type: 'step', data: { action: { code: 'var kept = 1;' } } });
    const second = await ws.request({ type: 'reset', data: TASK });
    expect(second.data.observation.episode_id).not.toBe(first.data.observation.episode_id);
    const probe = await ws.request({ type: 'step', data: { action: { code: 'print(typeof kept)' } } });
    expect(probe.data.observation.stdout.trim()).toBe('undefined');
    const answer = await ws.request({ type: 'step', data: { action: { answer: 'teal' } } });
    expectCorrectFinish(answer.data);
    await ws.close();
  });

  it("WebSocket, OpenEnv's shapes: REPLEnv reset(context, task_prompt, expected_answer), bare actions, mcp", async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const reset = await ws.request({
      type: 'reset',
      data: { context: CONTEXT, task_prompt: TASK.question, expected_answer: 'teal', hf_token: 'ignored' },
    });
    expectFirstObservation(reset.data);
    const search = await ws.request({ type: 'step', data: { code: SEARCH, is_final: false, final_answer: null } });
    expectSearchFound(search.data);
    // REPLEnv's observation fields, as its client parses them.
    expect(search.data.observation).toMatchObject({
      result: { stdout: 'teal\n', stderr: '', success: true, exception: null, locals_snapshot: {} },
      context_length: CONTEXT.length,
      available_variables: expect.arrayContaining(['m', 'hits']),
      iteration: 1,
      max_iterations: 16,
    });
    const failed = await ws.request({ type: 'step', data: { code: 'throw new Error("boom")' } });
    expect(failed.data.observation.result).toMatchObject({
      success: false,
      exception: expect.stringContaining('boom'),
    });
    const viaMcp = await ws.request({
      type: 'mcp',
      data: {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'run_code', arguments: { code: 'print(hits)' } },
      },
    });
    expect(viaMcp).toMatchObject({ type: 'mcp', data: { jsonrpc: '2.0', id: 7 } });
    expect(viaMcp.data.result.structuredContent.observation).toMatchObject({ stdout: '1\n', step: 3 });
    const final = await ws.request({ type: 'step', data: { code: '', is_final: true, final_answer: 'teal' } });
    expectCorrectFinish(final.data);
    await ws.close();
  });

  it('an ad-hoc episode over a given context without a gold answer runs and ends unscored', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const reset = await ws.request({ type: 'reset', data: { context: CONTEXT, task_prompt: TASK.question } });
    expect(reset.data.observation).toMatchObject({ question: TASK.question, context_chars: CONTEXT.length });
    expectSearchFound((await ws.request({ type: 'step', data: { code: SEARCH } })).data);
    const state = await ws.request({ type: 'state' });
    expect(state.data).toMatchObject({ task_id: 'inline', step_count: 1 });
    const final = await ws.request({ type: 'step', data: { is_final: true, final_answer: 'teal' } });
    expect(final.data).toMatchObject({ done: true, reward: null, observation: { correct: null } });
    await ws.close();
  });

  it('HTTP without ids, as OpenEnv: /step runs in a scratch episode, /state is a fresh environment', async () => {
    const step = await post(h.baseUrl, '/step', { action: { code: 'print(typeof ctx, ctx.length)', is_final: false } });
    expect(step.status).toBe(200);
    expect(step.body).toMatchObject({ done: false, reward: null, observation: { stdout: 'string 0\n', step: 1 } });
    const final = await post(h.baseUrl, '/step', { action: { is_final: true, final_answer: 'x' } });
    expect(final.body).toMatchObject({ done: true, reward: null });
    expect((await get(h.baseUrl, '/state')).body).toEqual({ episode_id: null, step_count: 0 });
    const scratchId = step.body.observation.episode_id;
    expect((await get(h.baseUrl, `/state?episode_id=${scratchId}`)).status).toBe(404);
  });

  it('WebSocket /mcp: session create, run_code on the connection episode, submit_answer', async () => {
    const ws = await WsClient.connect(h.wsUrl.replace('/ws', '/mcp'));
    const call = (id: number, method: string, params: unknown) => ws.request({ jsonrpc: '2.0', id, method, params });
    const created = await call(1, 'openenv/session/create', TASK);
    expectFirstObservation(created.result);
    const search = await call(2, 'tools/call', { name: 'run_code', arguments: { code: SEARCH } });
    expectSearchFound(search.result.structuredContent);
    const answer = await call(3, 'tools/call', { name: 'submit_answer', arguments: { answer: 'teal' } });
    expectCorrectFinish(answer.result.structuredContent);
    expect(answer.result.structuredContent.observation.step).toBe(2);
    // The connection's episode answers that connection only.
    const state = await get(h.baseUrl, `/state?episode_id=${created.result.session_id}`);
    expect(state).toMatchObject({ status: 403, body: { code: 'EPISODE_FORBIDDEN' } });
    const own = await call(4, 'openenv/session/close', { session_id: created.result.session_id });
    expect(own.error.message).toMatch(/belongs to this WebSocket connection/);
    await ws.close();
  });

  it('MCP: initialize, tools/list, session create, run_code, submit_answer, session close', async () => {
    const rpc = async (method: string, params?: unknown, id: number | string = 1) =>
      (await post(h.baseUrl, '/mcp', { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })).body;

    const init = await rpc('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '0' },
    });
    expect(init.result.serverInfo.name).toBe('fathom-env');
    expect(init.result.capabilities.tools).toBeDefined();
    const notified = await post(h.baseUrl, '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(notified.status).toBe(202);

    const tools = await rpc('tools/list');
    expect(tools.result.tools.map((t: { name: string }) => t.name)).toEqual(['run_code', 'submit_answer']);

    const created = await rpc('openenv/session/create', TASK);
    const sessionId = created.result.session_id;
    expectFirstObservation(created.result);

    const search = await rpc('tools/call', { name: 'run_code', arguments: { code: SEARCH }, session_id: sessionId });
    expect(search.result.isError).toBe(false);
    expectSearchFound(search.result.structuredContent);
    expect(JSON.parse(search.result.content[0].text).observation.stdout.trim()).toBe('teal');

    // Plain MCP clients can only pass arguments, so the session id is accepted there too.
    const answer = await rpc('tools/call', {
      name: 'submit_answer',
      arguments: { answer: 'teal', session_id: sessionId },
    });
    expectCorrectFinish(answer.result.structuredContent);

    const closed = await rpc('openenv/session/close', { session_id: sessionId });
    expect(closed.result).toEqual({ session_id: sessionId, closed: true });
    const gone = await rpc('tools/call', { name: 'run_code', arguments: { code: '1' }, session_id: sessionId });
    expect(gone.error).toMatchObject({ code: -32602, data: { code: 'EPISODE_NOT_FOUND' } });

    // Without a session, a call runs in a temporary scratch episode, as OpenEnv's temporary environment.
    const scratch = await rpc('tools/call', { name: 'run_code', arguments: { code: 'print(ctx.length + 2)' } });
    expect(scratch.result.structuredContent).toMatchObject({ done: false, observation: { stdout: '2\n' } });
  });

  it('gRPC: Reset, Step (search), State, Step (answer), Close', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const reset = await client.call('Reset', TASK);
      expect(reset.done).toBe(false);
      expect(reset.reward).toBeUndefined();
      expect(reset.observation.context_tokens).toBeGreaterThanOrEqual(200_000);
      const id = reset.observation.episode_id;

      const search = await client.call('Step', { episode_id: id, code: SEARCH });
      expect(search.observation.error).toBeUndefined();
      expect(search.observation.stdout.trim()).toBe('teal');
      expect(search.observation.variables).toEqual(expect.arrayContaining(['m', 'hits']));

      const state = await client.call('State', { episode_id: id });
      expect(state).toMatchObject({ episode_id: id, step_count: 1, done: false });

      const answer = await client.call('Step', { episode_id: id, answer: 'teal' });
      expect(answer.done).toBe(true);
      expect(answer.observation.correct).toBe(true);
      expect(answer.reward).toBeGreaterThan(0.7);

      expect(await client.call('Close', { episode_id: id })).toEqual({ episode_id: id, closed: true });
    } finally {
      client.close();
    }
  });

  it('gRPC Session: one stream answers reset, steps and state in order, a bad request with an error, and ends', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    const activeSessions = async () => (await get(h.baseUrl, '/capabilities')).body.active_sessions;
    try {
      const session = client.session();
      const reset = await session.request({ reset: TASK });
      expect(reset.observation.observation.context_tokens).toBeGreaterThanOrEqual(200_000);
      const id = reset.observation.observation.episode_id;
      expect(await activeSessions()).toBe(1);

      const search = await session.request({ step: { code: SEARCH } });
      expect(search.observation.observation.stdout.trim()).toBe('teal');
      const other = await session.request({ step: { episode_id: 'someone-else', code: '1' } });
      expect(other.error).toEqual({
        status: 3,
        reason: 'VALIDATION_ERROR',
        message: `step.episode_id "someone-else" is not this session's episode "${id}"`,
      });
      const empty = await session.request({ step: {} });
      expect(empty.error).toMatchObject({ status: 3, reason: 'VALIDATION_ERROR' });
      expect((await session.request({ state: {} })).state).toMatchObject({ episode_id: id, step_count: 1 });

      const answer = await session.request({ step: { episode_id: id, answer: 'teal' } });
      expect(answer.observation).toMatchObject({ done: true, observation: { correct: true } });
      session.stream.write({ close: {} });
      expect((await session.status).code).toBe(0);
      await expect.poll(activeSessions).toBe(0);
      expect(() => h.service.episodes.state(id)).toThrow(/not found/i);

      // A cancelled stream ends its episode and frees its slot too; a step before any reset is refused.
      const cancelled = client.session();
      expect((await cancelled.request({ step: { code: '1' } })).error).toMatchObject({
        status: 9,
        reason: 'NO_ACTIVE_EPISODE',
      });
      const second = (await cancelled.request({ reset: TASK })).observation.observation.episode_id;
      cancelled.stream.cancel();
      await expect.poll(activeSessions).toBe(0);
      expect(() => h.service.episodes.state(second)).toThrow(/not found/i);

      // Bytes that are not a SessionRequest get a SessionError (grpc-js alone ends the call INTERNAL), and the
      // stream goes on.
      const { Session } = loadService('env.proto', 'fathom.env.v1.Env').service;
      const raw = new grpc.Client(h.grpcAddress, grpc.credentials.createInsecure());
      try {
        const garbled = raw.makeBidiStreamRequest(
          '/fathom.env.v1.Env/Session',
          (b: Buffer) => b,
          Session.responseDeserialize,
        );
        const replies: Json[] = [];
        garbled.on('data', (reply: Json) => replies.push(reply));
        const ended = new Promise<void>((resolve) => garbled.on('status', () => resolve()));
        garbled.write(Buffer.from([0xff, 0xff, 0xff]));
        garbled.write(Session.requestSerialize({ step: { code: '1' } }));
        await expect.poll(() => replies.length).toBe(2);
        expect(replies[0].error).toMatchObject({
          status: grpc.status.INVALID_ARGUMENT,
          reason: 'INVALID_JSON',
          message: expect.stringMatching(/^the message is not a SessionRequest protobuf \(.+\)$/),
        });
        expect(replies[1].error).toMatchObject({ reason: 'NO_ACTIVE_EPISODE' });
        garbled.end();
        await ended;
      } finally {
        raw.close();
      }
      await expect.poll(activeSessions).toBe(0);
    } finally {
      client.close();
    }
  });

  it('describes itself: /, /health, /metadata, /schema, /openapi.json', async () => {
    const home = await get(h.baseUrl, '/');
    expect(home.contentType).toContain('text/html');
    for (const link of ['/health', '/metadata', '/capabilities', '/schema', '/openapi.json', '/metrics', '/ws', '/mcp'])
      expect(home.body).toContain(link);
    expect((await get(h.baseUrl, '/health')).body).toEqual({ status: 'healthy' });
    const metadata = (await get(h.baseUrl, '/metadata')).body;
    expect(metadata).toMatchObject({ name: 'fathom-rlm', version: '0.1.0' });
    // Only the keys of OpenEnv's EnvironmentMetadata, which forbids others.
    const upstreamKeys = ['name', 'description', 'readme_content', 'version', 'author', 'documentation_url'];
    expect(Object.keys(metadata).filter((key) => !upstreamKeys.includes(key))).toEqual([]);
    expect((await get(h.baseUrl, '/capabilities')).body).toMatchObject({
      max_concurrent_envs: 64,
      active_sessions: 0,
      mcp_tools: ['run_code', 'submit_answer'],
    });
    const schema = (await get(h.baseUrl, '/schema')).body;
    expect(Object.keys(schema.action.properties)).toEqual(['code', 'answer', 'is_final', 'final_answer', 'metadata']);
    expect(schema.observation.required).toEqual(
      expect.arrayContaining(['stdout', 'truncated_chars', 'variables', 'done']),
    );
    expect(schema.state.required).toEqual(expect.arrayContaining(['episode_id', 'step_count']));
    const openapi = (await get(h.baseUrl, '/openapi.json')).body;
    expect(openapi.openapi).toBe('3.1.0');
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/reset', '/step', '/state', '/mcp']));
    expect(openapi.components.schemas.StepRequest.required).toEqual(['action']);
  });
});
