import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EnvGrpcClient,
  get,
  metricSum,
  post,
  startHarness,
  WsClient,
  type Harness,
  type Json,
} from '../test-support/harness';

/**
 * llm() answered by the session's client: an episode reset with serve_llm over WebSocket /ws or gRPC Env.Session
 * sends each guest llm() call to the client (llm_request) and waits for the client's llm_reply, so the client's
 * engine and model answer the sub-calls; the configured Inference endpoint (a scripted TEST DOUBLE here) serves none.
 */

const TASK = {
  context: 'The van is crimson. The lamp is teal.',
  question: 'What colour is the van?',
  answer: 'crimson',
};
const READ =
  'try { print(llm("What colour is the van?", "The van is crimson.")) } catch (e) { print("ERR " + e.message) }';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ INFERENCE_TIMEOUT_MS: '1500', MAX_STEPS: '64' });
});

afterAll(async () => {
  await h.close();
});

async function activeSessions(): Promise<number> {
  return (await get(h.baseUrl, '/capabilities')).body.active_sessions;
}

describe('llm() served by the session client (serve_llm)', () => {
  it('WebSocket /ws: each llm() call goes to the client, and its reply is what the guest reads', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const served = h.inference.requests.length;
    try {
      const reset = await ws.request({ type: 'reset', data: { ...TASK, serve_llm: true } });
      const id = reset.data.observation.episode_id;
      ws.socket.send(JSON.stringify({ type: 'step', data: { code: READ } }));

      const request = await ws.next();
      expect(request.type).toBe('llm_request');
      expect(request.data).toEqual({
        request_id: expect.any(String),
        episode_id: id,
        depth: 1,
        prompt: 'What colour is the van?',
        chunk: 'The van is crimson.',
        token_budget: expect.any(Number),
      });
      const reply = { text: 'crimson', completion_tokens: 2 };
      ws.socket.send(JSON.stringify({ type: 'llm_reply', data: { request_id: request.data.request_id, reply } }));

      const observation = await ws.next();
      expect(observation).toMatchObject({ type: 'observation', data: { observation: { error: null, llm_calls: 1 } } });
      expect(observation.data.observation.stdout.trim()).toBe('crimson');
      expect(h.inference.requests.length).toBe(served);

      // Without serve_llm the configured endpoint serves the same call, and the client is sent nothing.
      await ws.request({ type: 'reset', data: TASK });
      const endpoint = await ws.request({ type: 'step', data: { code: READ } });
      expect(endpoint.type).toBe('observation');
      expect(endpoint.data.observation.stdout.trim()).toBe('sub-answer at depth 1');
      expect(h.inference.requests.length).toBe(served + 1);
      for (const answeredBy of ['client', 'service'])
        expect(
          await metricSum(h.baseUrl, 'fathom_env_llm_calls_total', { outcome: 'ok', answered_by: answeredBy }),
        ).toBeGreaterThanOrEqual(1);
    } finally {
      await ws.close();
    }
  });

  it('gRPC Env.Session: the same, with llm_request replies and llm_reply requests on the stream', async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    const served = h.inference.requests.length;
    try {
      const session = client.session();
      const reset = await session.request({ reset: { ...TASK, serve_llm: true } });
      const id = reset.observation.observation.episode_id;
      session.stream.write({ step: { code: READ } });

      const { llm_request: request } = await session.next();
      expect(request).toMatchObject({ episode_id: id, depth: 1, prompt: 'What colour is the van?' });
      expect(request.chunk).toBe('The van is crimson.');
      session.stream.write({ llm_reply: { request_id: request.request_id, reply: { text: 'crimson' } } });
      const step = (await session.next()).observation;
      expect(step.observation.stdout.trim()).toBe('crimson');
      expect(step.observation.llm_calls).toBe(1);

      const answer = await session.request({ step: { answer: 'crimson' } });
      expect(answer.observation).toMatchObject({ done: true, observation: { correct: true, answer: 'crimson' } });
      expect(h.inference.requests.length).toBe(served);
      session.stream.write({ close: {} });
      expect((await session.status).code).toBe(0);
    } finally {
      client.close();
    }
  });

  it("a chunk over the reader window reaches the client whole: what a call means is the client's to decide", async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const served = h.inference.requests.length;
    try {
      const context = TASK.context.repeat(10);
      await ws.request({ type: 'reset', data: { ...TASK, context, serve_llm: true } });
      ws.socket.send(JSON.stringify({ type: 'step', data: { code: 'print(llm("Which colour?", ctx))' } }));
      const request = await ws.next();
      expect(request.data).toMatchObject({ prompt: 'Which colour?', chunk: context, depth: 1 });
      const reply = { text: 'crimson' };
      ws.socket.send(JSON.stringify({ type: 'llm_reply', data: { request_id: request.data.request_id, reply } }));
      const observation = await ws.next();
      expect(observation.data.observation.stdout.trim()).toBe('crimson');
      expect(h.inference.requests.length).toBe(served);
    } finally {
      await ws.close();
    }
  });

  it("a client's error reply, or no reply in time, fails the guest's llm() with the reason; the session goes on", async () => {
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const session = client.session();
      await session.request({ reset: { ...TASK, serve_llm: true } });
      session.stream.write({ step: { code: READ } });
      const { llm_request: request } = await session.next();
      session.stream.write({ llm_reply: { request_id: request.request_id, error: 'model not loaded' } });
      const failed = (await session.next()).observation.observation;
      expect(failed.stdout).toContain('ERR');
      expect(failed.stdout).toContain('model not loaded');

      // Unanswered: the request times out after INFERENCE_TIMEOUT_MS.
      session.stream.write({ step: { code: READ } });
      expect((await session.next()).llm_request).toBeDefined();
      const late = (await session.next()).observation.observation;
      expect(late.stdout).toMatch(/did not answer llm_request .* within 1500 ms/);
      expect((await session.request({ state: {} })).state).toMatchObject({ step_count: 2 });
      session.stream.write({ close: {} });
      await session.status;
    } finally {
      client.close();
    }
  });

  it('a client that sends 40 large steps while it owes an llm_reply still gets its reply read', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    try {
      await ws.request({ type: 'reset', data: { ...TASK, serve_llm: true } });
      // Each 60 KB: past 32 unanswered requests the session stops reading, and the rest wait in the socket's buffers,
      // with the client's llm_reply behind them.
      const padding = `// ${'x'.repeat(60_000)}`;
      ws.socket.send(JSON.stringify({ type: 'step', data: { code: READ } }));
      for (let i = 0; i < 40; i++)
        ws.socket.send(JSON.stringify({ type: 'step', data: { code: `print(${i}) ${padding}` } }));
      const request = await ws.next();
      expect(request.type).toBe('llm_request');
      const reply = { text: 'crimson' };
      ws.socket.send(JSON.stringify({ type: 'llm_reply', data: { request_id: request.data.request_id, reply } }));
      const replies = await Promise.all(Array.from({ length: 41 }, () => ws.next()));
      expect(replies[0]!.data.observation.stdout.trim()).toBe('crimson');
      // Answered in order: the steps the session held, then those it read only to reach the llm_reply, refused.
      const answered = replies.slice(1).filter((r) => r.type === 'observation');
      const refused = replies.slice(1).filter((r) => r.type === 'error');
      expect(answered.map((r) => r.data.observation.stdout)).toEqual(answered.map((_, i) => `${i}\n`));
      expect(replies.slice(1)).toEqual([...answered, ...refused]);
      for (const error of refused) {
        expect(error.data).toMatchObject({ reason: 'CAPACITY_REACHED' });
        expect(error.data.message).toMatch(/waits for its llm_reply/);
      }
      // The session holds 32 (the llm() step and 31 more) and refuses what it reads after them, the llm_reply last.
      expect([answered.length, refused.length]).toEqual([31, 9]);
      expect((await ws.request({ type: 'step', data: { code: 'print("after")' } })).data.observation.stdout).toBe(
        'after\n',
      );
    } finally {
      await ws.close();
    }
  });

  it('a session that ends while a step waits on its client ends the episode and frees the slot', async () => {
    const ws = await WsClient.connect(h.wsUrl);
    const reset = await ws.request({ type: 'reset', data: { ...TASK, serve_llm: true } });
    const id = reset.data.observation.episode_id;
    ws.socket.send(JSON.stringify({ type: 'step', data: { code: READ } }));
    expect((await ws.next()).type).toBe('llm_request');
    await ws.close();
    await expect.poll(activeSessions).toBe(0);
    expect(() => h.service.episodes.state(id)).toThrow(/not found/i);
  });

  it('bad input: serve_llm without a session that can answer, and llm replies that name nothing', async () => {
    const http = await post(h.baseUrl, '/reset', { ...TASK, serve_llm: true });
    expect(http.status).toBe(422);
    expect(http.body.detail ?? http.body.message ?? JSON.stringify(http.body)).toMatch(/serve_llm needs a session/);

    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      await expect(client.call('Reset', { ...TASK, serve_llm: true })).rejects.toMatchObject({
        code: 3,
        details: expect.stringContaining('serve_llm needs a session'),
      });
    } finally {
      client.close();
    }

    const mcp = await WsClient.connect(h.wsUrl.replace('/ws', '/mcp'));
    try {
      const params = { ...TASK, serve_llm: true };
      const created = await mcp.request({ jsonrpc: '2.0', id: 1, method: 'openenv/session/create', params });
      expect(created.error.message).toMatch(/serve_llm needs a session/);
    } finally {
      await mcp.close();
    }

    const ws = await WsClient.connect(h.wsUrl);
    try {
      await ws.request({ type: 'reset', data: TASK });
      const unknown = await ws.request({ type: 'llm_reply', data: { request_id: 'nope', reply: { text: 'x' } } });
      expect(unknown.data).toMatchObject({ reason: 'VALIDATION_ERROR' });
      expect(unknown.data.message).toContain('"nope" names no llm_request waiting');
      const neither = await ws.request({ type: 'llm_reply', data: { request_id: 'nope' } });
      expect(neither.data.message).toContain('exactly one of "reply" (the answer) or "error"');
      const badTokens = await ws.request({
        type: 'llm_reply',
        data: { request_id: 'nope', reply: { text: 'x', completion_tokens: -1 } },
      });
      expect(badTokens.data).toMatchObject({ reason: 'VALIDATION_ERROR' });
      const state: Json = await ws.request({ type: 'state' });
      expect(state).toMatchObject({ type: 'state', data: { step_count: 0 } });
    } finally {
      await ws.close();
    }
    await expect.poll(activeSessions).toBe(0);
  });
});
