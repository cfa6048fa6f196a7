import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
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
 * Containment at the service level: a runaway or memory-hungry step ends only its own episode; the service stays
 * healthy and a parallel session keeps working. (The full containment matrix is tested in libs/sandbox.)
 */

const TASK = {
  context: 'The locker number is 318. '.repeat(50),
  question: 'What is the locker number?',
  answer: '318',
};
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    STEP_CPU_MS: '1000',
    STEP_TIMEOUT_MS: '2000',
    SANDBOX_MEMORY_MB: '32',
    SANDBOX_WORKERS: '2',
  });
});

afterAll(async () => {
  await h.close();
});

async function reset(): Promise<string> {
  const res = await post(h.baseUrl, '/reset', TASK);
  expect(res.status).toBe(200);
  return res.body.observation.episode_id;
}

/** A parallel WebSocket session that must keep answering while another episode misbehaves. */
async function parallelSessionWorks(ws: WsClient, n: number) {
  const reply = await ws.request({ type: 'step', data: { action: { code: `print(ctx.indexOf("318") + ${n})` } } });
  expect(reply.type).toBe('observation');
  expect(reply.data.observation.error).toBeNull();
  expect(Number(reply.data.observation.stdout.trim())).toBe(TASK.context.indexOf('318') + n);
}

describe('service-level containment', () => {
  it.each([
    ['while(true){}', 'while (true) {}', ['cpu_limit', 'timeout']],
    [
      'a memory bomb',
      'const a = []; while (true) a.push(new Array(1e6).fill(1.5));',
      ['memory_limit', 'worker_crashed'],
    ],
    [
      'a Map grown without bound',
      'const m = new Map(); let i = 0; while (true) m.set(i++, "v" + i);',
      ['memory_limit'],
    ],
  ])('%s ends only its own episode; health and a parallel session are unaffected', async (_name, code, codes) => {
    const ws = await WsClient.connect(h.wsUrl);
    await ws.request({ type: 'reset', data: TASK });
    const id = await reset();
    const [bad] = await Promise.all([
      post(h.baseUrl, '/step', { episode_id: id, action: { code } }),
      parallelSessionWorks(ws, 1),
    ]);
    expect(bad.status).toBe(200);
    expect(codes).toContain(bad.body.observation.error.code);
    expect(bad.body.done).toBe(true);
    expect(bad.body.observation.correct).toBe(false);
    expect(bad.body.reward).toBeLessThanOrEqual(0.25);
    expect((await get(h.baseUrl, '/health')).body).toEqual({ status: 'healthy' });
    await parallelSessionWorks(ws, 2);
    const fresh = await reset();
    const ok = await post(h.baseUrl, '/step', { episode_id: fresh, action: { code: 'print(2 + 2)' } });
    expect(ok.body.observation.stdout.trim()).toBe('4');
    await ws.close();
  });

  it('a request timeout_s below the service limit stops the step and ends the episode', async () => {
    const id = await reset();
    const started = Date.now();
    const res = await post(h.baseUrl, '/step', { episode_id: id, action: { code: 'while (true) {}' }, timeout_s: 0.1 });
    expect(res.body.observation.error.code).toMatch(/timeout|cpu_limit/);
    expect(res.body.done).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('an output flood is truncated with a marker and counted; the episode goes on', async () => {
    const id = await reset();
    const res = await post(h.baseUrl, '/step', {
      episode_id: id,
      action: { code: 'for (let i = 0; i < 1e5; i++) print("flood " + i);' },
    });
    expect(res.status).toBe(200);
    expect(res.body.observation.truncated_chars).toBeGreaterThan(100_000);
    expect(res.body.observation.stdout.length).toBeLessThan(4_200);
    expect(res.body.observation.stdout).toContain(String(res.body.observation.truncated_chars));
    expect(res.body.done).toBe(false);
  });

  it('exports the step histogram, sessions, timeouts, restarts and llm() calls on /metrics', async () => {
    const res = await fetch(`${h.baseUrl}/metrics`);
    const text = await res.text();
    expect(res.headers.get('content-type')).toContain('text/plain');
    for (const name of [
      'fathom_env_step_seconds_bucket',
      'fathom_env_active_sessions',
      'fathom_env_sandbox_timeouts_total',
      'fathom_env_sandbox_worker_restarts_total',
      'fathom_env_llm_calls_total',
    ]) {
      expect(text).toContain(name);
    }
    expect(text).toMatch(/fathom_env_sandbox_timeouts_total\{service="env-service"\} [1-9]/);
  });
});

describe('sessions that use up their CPU time', () => {
  let penal: Harness;

  beforeAll(async () => {
    // A wall-time limit far above the CPU one: the endless loop always ends as cpu_limit, however busy the machine;
    // and a CPU limit that the growing Map outlasts up to the point where V8 gives up.
    penal = await startHarness({
      STEP_CPU_MS: '2000',
      STEP_TIMEOUT_MS: '60000',
      SANDBOX_MEMORY_MB: '64',
      SANDBOX_LOW_PRIORITY_WORKERS: '1',
    });
  });

  afterAll(async () => {
    await penal.close();
  });

  it('open their next episode on the low-priority worker, until a step within the limits', async () => {
    const ws = await WsClient.connect(penal.wsUrl);
    const lowEpisodes = () => metricSum(penal.baseUrl, 'fathom_env_sandbox_low_priority_episodes_total');
    const step = async (code: string) =>
      (await ws.request({ type: 'step', data: { action: { code } } })).data.observation;
    await ws.request({ type: 'reset', data: TASK });
    expect((await step('print(1)')).error).toBeNull();
    expect(await lowEpisodes()).toBe(0);
    expect((await step('while (true) {}')).error.code).toBe('cpu_limit');
    await ws.request({ type: 'reset', data: TASK });
    expect(await lowEpisodes()).toBe(1);
    // Penalised, not refused: the episode works as any other, and a step within the limits ends the penalty.
    expect((await step('print(ctx.indexOf("318"))')).stdout.trim()).toBe(String(TASK.context.indexOf('318')));
    await ws.request({ type: 'reset', data: TASK });
    expect(await lowEpisodes()).toBe(1);
    await ws.close();
  });

  it('open their next episode on the low-priority worker after a step that V8 lost its isolate to', async () => {
    const ws = await WsClient.connect(penal.wsUrl);
    const before = await metricSum(penal.baseUrl, 'fathom_env_sandbox_low_priority_episodes_total');
    const lostBefore = await metricSum(penal.baseUrl, 'fathom_env_sandbox_lost_isolates_total');
    await ws.request({ type: 'reset', data: TASK });
    // A Map grown without bound fails past the isolate's memory limit in a way V8 cannot recover from: the isolate is
    // lost (its worker drains) instead of the whole worker process.
    const reply = await ws.request({
      type: 'step',
      data: { action: { code: 'const m = new Map(); let i = 0; while (true) m.set(i++, "v" + i);' } },
    });
    expect(reply.data.observation.error.code).toBe('memory_limit');
    expect(await metricSum(penal.baseUrl, 'fathom_env_sandbox_lost_isolates_total')).toBe(lostBefore + 1);
    await ws.request({ type: 'reset', data: TASK });
    expect(await metricSum(penal.baseUrl, 'fathom_env_sandbox_low_priority_episodes_total')).toBe(before + 1);
    expect(
      (await ws.request({ type: 'step', data: { action: { code: 'print(ctx.length)' } } })).data.observation.stdout,
    ).toBe(`${TASK.context.length}\n`);
    await ws.close();
  });
});

/** A guest program that holds its episode for `ms` of busy CPU, then prints "slow". */
const busyFor = (ms: number) => `const t = Date.now(); while (Date.now() - t < ${ms}) {} print("slow")`;

/**
 * Sends one step that holds its episode for 3 s, then, while it runs, 40 more at once (`print(i)`): 31 of them can
 * wait behind it. The slow step's reply and the 40 others', in the order sent.
 */
async function fortyBehindASlowStep<R>(step: (code: string) => Promise<R>): Promise<{ slow: R; replies: R[] }> {
  const slow = step(busyFor(3000));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => step(`print(${i})`)));
  return { slow: await slow, replies };
}

describe('a client that sends 100 steps without waiting', () => {
  let eager: Harness;

  beforeAll(async () => {
    eager = await startHarness({ MAX_STEPS: '200', STEP_CPU_MS: '5000', STEP_TIMEOUT_MS: '8000' });
  });

  afterAll(async () => {
    await eager.close();
  });

  it('is answered in order, and read only as fast as it is answered', async () => {
    const ws = await WsClient.connect(eager.wsUrl);
    await ws.request({ type: 'reset', data: TASK });
    // Past 32 unanswered requests the session stops reading the socket, and resumes as it answers them.
    for (let i = 0; i < 100; i++)
      ws.socket.send(JSON.stringify({ type: 'step', data: { action: { code: `print(${i})` } } }));
    for (let i = 0; i < 100; i++) {
      const reply = await ws.next();
      expect(reply.data.observation.stdout).toBe(`${i}\n`);
    }
    await ws.close();
  });

  it('on a gRPC Session stream too', async () => {
    const client = new EnvGrpcClient(eager.grpcAddress);
    try {
      const session = client.session();
      expect((await session.request({ reset: TASK })).observation.done).toBe(false);
      for (let i = 0; i < 100; i++) session.stream.write({ step: { code: `print(${i})` } });
      for (let i = 0; i < 100; i++) expect((await session.next()).observation.observation.stdout).toBe(`${i}\n`);
      session.stream.end();
    } finally {
      client.close();
    }
  });

  it('over HTTP is refused at once past 32 steps running or waiting on one episode, and the episode goes on', async () => {
    const id = (await post(eager.baseUrl, '/reset', TASK)).body.observation.episode_id;
    const step = (code: string) => post(eager.baseUrl, '/step', { episode_id: id, action: { code } });
    const { slow, replies } = await fortyBehindASlowStep(step);
    expect(slow.body.observation.stdout).toBe('slow\n');
    expect(replies.filter((r) => r.status === 200)).toHaveLength(31);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused).toHaveLength(9);
    expect(refused[0].body.code).toBe('CAPACITY_REACHED');
    expect(refused[0].body.message).toBe(
      `episode ${id} has 32 steps running or waiting; wait for their answers before sending more`,
    );
    expect((await step('print("after")')).body.observation.stdout).toBe('after\n');
  });

  it('over unary gRPC the same, as RESOURCE_EXHAUSTED', async () => {
    const client = new EnvGrpcClient(eager.grpcAddress);
    try {
      const id = (await client.call('Reset', TASK)).observation.episode_id;
      const step = (code: string) =>
        client.call('Step', { episode_id: id, code }).then(
          (reply: Json) => reply.observation.stdout as string,
          (e: grpc.ServiceError) => e,
        );
      const { slow, replies } = await fortyBehindASlowStep(step);
      expect(slow).toBe('slow\n');
      expect(replies.filter((r) => typeof r === 'string')).toHaveLength(31);
      const refused = replies.filter((r): r is grpc.ServiceError => typeof r !== 'string');
      expect(refused).toHaveLength(9);
      expect(refused[0].code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(refused[0].details).toContain('has 32 steps running or waiting');
      expect(await step('print("after")')).toBe('after\n');
    } finally {
      client.close();
    }
  });
});

describe('request bodies held at once', () => {
  let tight: Harness;

  beforeAll(async () => {
    tight = await startHarness({
      MAX_BODY_BYTES_IN_FLIGHT: String(2 * 1024 * 1024),
      STEP_CPU_MS: '5000',
      STEP_TIMEOUT_MS: '8000',
    });
  });

  afterAll(async () => {
    await tight.close();
  });

  it('past MAX_BODY_BYTES_IN_FLIGHT are refused with 429 before they are read, and nothing is lost', async () => {
    const padding = ` //${'x'.repeat(1_500_000)}`;
    const id = (await post(tight.baseUrl, '/reset', TASK)).body.observation.episode_id;
    // 1.5 MB of the 2 MiB held until this 2 s step is answered.
    const slow = post(tight.baseUrl, '/step', {
      episode_id: id,
      action: { code: `${busyFor(2000)}${padding}` },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const large = { ...TASK, context: `${TASK.context}${padding}` };
    const refused = await post(tight.baseUrl, '/reset', large);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('CAPACITY_REACHED');
    expect(refused.body.message).toMatch(/holds at most 2097152 a client \(MAX_BODY_BYTES_IN_FLIGHT\)/);
    // A small body still fits beside the held one.
    expect((await post(tight.baseUrl, '/reset', TASK)).status).toBe(200);
    expect((await slow).body.observation.stdout).toBe('slow\n');
    // Once the step is answered its bytes are free again, and the large request passes.
    const reset = await post(tight.baseUrl, '/reset', large);
    expect(reset.status).toBe(200);
    expect(reset.body.observation.context_chars).toBe(large.context.length);
  });
});

describe('shutdown', () => {
  it('closes with WebSocket sessions still open, ending them', async () => {
    const service = await startHarness();
    const ws = await WsClient.connect(service.wsUrl);
    expect((await ws.request({ type: 'reset', data: TASK })).type).toBe('observation');
    const ended = new Promise<void>((resolve) => ws.socket.once('close', () => resolve()));
    // Before the fix this never resolved while the client kept its connection.
    await service.close();
    await ended;
    expect(ws.socket.readyState).toBe(ws.socket.CLOSED);
  });
});

describe('capacity', () => {
  let capped: Harness;

  beforeAll(async () => {
    capped = await startHarness({ MAX_CONCURRENT_ENVS: '2' });
  });

  afterAll(async () => {
    await capped.close();
  });

  it('counts a WebSocket session from connect, refuses what is beyond MAX_CONCURRENT_ENVS, frees it on close', async () => {
    const a = await post(capped.baseUrl, '/reset', TASK);
    // An idle connection holds a slot, as an OpenEnv session does from connect.
    const ws = await WsClient.connect(capped.wsUrl);
    await expect.poll(async () => (await get(capped.baseUrl, '/capabilities')).body.active_sessions).toBe(2);

    const refused = await post(capped.baseUrl, '/reset', TASK);
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('CAPACITY_REACHED');
    for (const path of ['/ws', '/mcp']) {
      const extra = await WsClient.connect(capped.wsUrl.replace('/ws', path));
      const reply = await extra.next();
      const code = path === '/ws' ? reply.data.code : reply.error.code;
      expect(code).toBe(path === '/ws' ? 'CAPACITY_REACHED' : -32000);
      await extra.close();
    }
    // Its own reset uses the connection's slot.
    expect((await ws.request({ type: 'reset', data: TASK })).type).toBe('observation');

    await ws.close();
    let b = await post(capped.baseUrl, '/reset', TASK);
    await expect
      .poll(async () => (b.status === 200 ? 200 : (b = await post(capped.baseUrl, '/reset', TASK)).status))
      .toBe(200);
    await post(capped.baseUrl, '/close', { episode_id: a.body.observation.episode_id });
    await post(capped.baseUrl, '/close', { episode_id: b.body.observation.episode_id });
  });
});

describe('capacity and idle reaping', () => {
  let small: Harness;

  beforeAll(async () => {
    small = await startHarness({ MAX_CONCURRENT_ENVS: '2', IDLE_TIMEOUT_S: '1', MAX_STEPS: '2' });
  });

  afterAll(async () => {
    await small.close();
  });

  it('ends an episode without an answer at MAX_STEPS, scored as unanswered', async () => {
    const id = (await post(small.baseUrl, '/reset', TASK)).body.observation.episode_id;
    const first = await post(small.baseUrl, '/step', { episode_id: id, action: { code: 'print(1)' } });
    expect(first.body).toMatchObject({ done: false, observation: { step: 1, max_steps: 2 } });
    const last = await post(small.baseUrl, '/step', { episode_id: id, action: { code: 'print(2)' } });
    expect(last.body).toMatchObject({ done: true, observation: { step: 2, correct: false, stdout: '2\n' } });
    expect(last.body.reward).toBeLessThanOrEqual(0.25);
    expect((await post(small.baseUrl, '/step', { episode_id: id, action: { answer: '318' } })).status).toBe(409);
    await post(small.baseUrl, '/close', { episode_id: id });
  });

  it('closes a WebSocket session left idle past IDLE_TIMEOUT_S, which frees its slot', async () => {
    const ws = await WsClient.connect(small.wsUrl);
    await ws.request({ type: 'reset', data: TASK });
    const closed = await new Promise<number>((resolve) => ws.socket.once('close', (code) => resolve(code)));
    expect(closed).toBe(1001);
    await expect.poll(async () => (await get(small.baseUrl, '/capabilities')).body.active_sessions).toBe(0);
  });

  it('ends a gRPC Session stream left idle past IDLE_TIMEOUT_S with DEADLINE_EXCEEDED, which frees its slot', async () => {
    const client = new EnvGrpcClient(small.grpcAddress);
    try {
      const session = client.session();
      expect((await session.request({ reset: TASK })).observation.done).toBe(false);
      expect(await get(small.baseUrl, '/capabilities')).toMatchObject({ body: { active_sessions: 1 } });
      const status = await session.status;
      expect(status.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      expect(status.details).toContain('IDLE_TIMEOUT_S (1 s)');
      await expect.poll(async () => (await get(small.baseUrl, '/capabilities')).body.active_sessions).toBe(0);

      // At capacity a new stream ends at once with RESOURCE_EXHAUSTED, naming the limit.
      const held = [client.session(), client.session()];
      for (const s of held) await s.request({ state: {} });
      const refused = await client.session().status;
      expect(refused.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      for (const s of held) s.stream.end();
    } finally {
      client.close();
    }
  });

  it('closes an episode left idle past IDLE_TIMEOUT_S', async () => {
    const id = (await post(small.baseUrl, '/reset', TASK)).body.observation.episode_id;
    expect((await get(small.baseUrl, `/state?episode_id=${id}`)).status).toBe(200);
    await expect
      .poll(async () => (await get(small.baseUrl, `/state?episode_id=${id}`)).status, { timeout: 5_000, interval: 200 })
      .toBe(404);
  });
});
