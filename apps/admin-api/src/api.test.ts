import { TASK_TYPES, checkDocumentedReply, deadLetterQueueOf, groupId } from '@fathom/contracts';
import {
  EpisodeRepository,
  EvalRepository,
  PolicyVersionRepository,
  RunRepository,
  StepRepository,
  type EpisodeRecord,
} from '@fathom/persistence';
import { BullMqTransport } from '@fathom/queue';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS } from './http/openapi';
import {
  createTestDatabase,
  request,
  startHarness,
  TEST_REDIS_URL,
  type Harness,
  type Json,
  type TestDatabase,
} from './test-support/harness';

let db: TestDatabase;
let h: Harness;

/** A request whose JSON reply must match its documented schema (ADMIN_OPERATIONS), whatever the status. */
async function call(method: string, path: string, body?: unknown) {
  const reply = await request(h.baseUrl, method, path, { body });
  const contentType = reply.headers.get('content-type') ?? '';
  checkDocumentedReply(ADMIN_OPERATIONS, { method, path, status: reply.status, contentType, body: reply.body });
  return reply;
}

/** The seeded run: 3 steps × 2 groups × 4 samples, with task type, reward and context length varying per episode. */
const SEEDED_RUN = 'run-seeded';
const seeded: EpisodeRecord[] = [];
for (let step = 1; step <= 3; step++) {
  for (const id of [groupId(step, 0), groupId(step, 1)]) {
    for (let sampleIndex = 0; sampleIndex < 4; sampleIndex++) {
      const i = seeded.length;
      seeded.push({
        runId: SEEDED_RUN,
        step,
        groupId: id,
        sampleIndex,
        taskId: `task-${step}-${id}`,
        taskType: TASK_TYPES[i % TASK_TYPES.length],
        contextTokens: 4096 * (1 + (i % 4)),
        policyVersion: step - 1,
        status: 'ok',
        reward: (i % 5) / 4,
        rewardComponents: { correctness: i % 2, token_budget: 0.5, recursion_efficiency: 0, format: 1 },
        llmCalls: i % 3,
        tokens: 100 + i,
        turns: 2,
        answer: `a${i}`,
        goldAnswer: 'a0',
        transcript: { prompt: `prompt ${i}`, turns: [{ completion: '```js\nprint(1)\n```', observation: '1' }] },
        recursionTree: [
          {
            depth: 1,
            prompt: 'where?',
            chunkChars: 500,
            answer: 'here',
            promptTokens: 20,
            completionTokens: 3,
            latencyMs: 12,
            children: [],
          },
        ],
      });
    }
  }
}

beforeAll(async () => {
  db = await createTestDatabase('api');
  const runs = new RunRepository(db.prisma);
  await runs.create({ id: SEEDED_RUN, name: 'seeded', config: { name: 'seeded' } });
  await runs.setStatus(SEEDED_RUN, 'running');
  const steps = new StepRepository(db.prisma);
  for (let step = 1; step <= 3; step++) {
    await steps.record({
      runId: SEEDED_RUN,
      step,
      policyVersion: step - 1,
      loss: 0.5 / step,
      kl: 0.01 * step,
      clipRatio: 0.1,
      rewardMean: 0.2 * step,
      rewardStd: 0.3,
      fracRewardZeroStd: 0.25,
      groupsSubmitted: 2,
      groupsTrainable: 2,
      tokens: 800,
      timings: { generation: 1.5, update: 0.5 },
      metrics: { completion_length: 120 },
      components: [
        { component: 'correctness', mean: 0.1 * step, std: 0.2 },
        { component: 'format', mean: 1, std: 0 },
      ],
    });
  }
  await new PolicyVersionRepository(db.prisma).record({
    runId: SEEDED_RUN,
    version: 1,
    step: 1,
    checkpointPath: '/ck/1',
  });
  await new EpisodeRepository(db.prisma).recordMany(seeded);
  h = await startHarness(db.url);
});

afterAll(async () => {
  await h?.close();
  await db?.drop();
});

describe('POST /runs', () => {
  it('creates a pending run with every default filled in, and lists it', async () => {
    const created = await call('POST', '/runs', { name: 'tiny', steps: 3, grpo: { maxStaleness: 1 } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'tiny', status: 'pending', step: 0, policyVersion: 0 });
    expect(created.body.id).toMatch(/^run-[0-9a-f-]{36}$/);
    expect(created.body.config).toMatchObject({
      steps: 3,
      batchSize: 4,
      grpo: { maxStaleness: 1, groupSize: 8 },
      reward: { weights: { correctness: 0.7 } },
      model: { checkpoint: 'default' },
    });
    const row = await new RunRepository(db.prisma).get(created.body.id);
    expect(row?.status).toBe('pending');
    const list = await call('GET', '/runs?status=pending');
    expect(list.status).toBe(200);
    expect(list.body.map((r: Json) => r.id)).toContain(created.body.id);
    expect(list.body.every((r: Json) => r.status === 'pending')).toBe(true);
  });

  it.each([
    ['no name', {}, ['body', 'name']],
    ['an unknown top-level key', { name: 'x', learningRate: 1 }, ['body']],
    ['an unknown nested key', { name: 'x', rollout: { G: 8 } }, ['body', 'rollout']],
    ["the optimizer's old name for lr", { name: 'x', optimizer: { learningRate: 1e-4 } }, ['body', 'optimizer']],
    ['a minLr above lr', { name: 'x', optimizer: { lr: 1e-4, minLr: 1e-3 } }, ['body', 'optimizer', 'minLr']],
    ['a wrong type', { name: 'x', steps: 'ten' }, ['body', 'steps']],
    ['a negative batch size', { name: 'x', batchSize: -1 }, ['body', 'batchSize']],
    [
      'reward weights not summing to 1',
      { name: 'x', reward: { weights: { correctness: 0.1 } } },
      ['body', 'reward', 'weights'],
    ],
    ['group size below 2', { name: 'x', grpo: { groupSize: 1 } }, ['body', 'grpo', 'groupSize']],
    ['an array body', [1, 2], ['body']],
    [
      'a checkpoint outside the data roots',
      { name: 'x', model: { checkpoint: '/etc' } },
      ['body', 'model', 'checkpoint'],
    ],
    [
      'a checkpoint that climbs out of them',
      { name: 'x', model: { checkpoint: 'out/../../etc' } },
      ['body', 'model', 'checkpoint'],
    ],
    ['a task file outside them', { name: 'x', data: { trainFile: '/etc/passwd' } }, ['body', 'data', 'trainFile']],
    [
      'a reader checkpoint outside them',
      { name: 'x', model: { readerCheckpoint: '/etc' } },
      ['body', 'model', 'readerCheckpoint'],
    ],
    [
      'a root checkpoint outside them',
      { name: 'x', model: { rootCheckpoint: '/etc' }, rollout: { trainSubcalls: true } },
      ['body', 'model', 'rootCheckpoint'],
    ],
  ])('rejects %s with 422 and the zod issue path', async (_label, body, path) => {
    const reply = await call('POST', '/runs', body);
    expect(reply.status).toBe(422);
    expect(reply.body.code).toBe('VALIDATION_ERROR');
    expect(reply.body.message).toMatch(/^invalid body: /);
    expect(reply.body.details.map((d: Json) => d.path)).toContainEqual(path);
  });

  it('accepts a checkpoint and a task file under the data roots (data/, out/), and writes no run for one outside', async () => {
    const dir = `out/test-admin-api-${process.pid}`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/tasks.jsonl`, '');
    const inside = await call('POST', '/runs', {
      name: 'rooted',
      model: { checkpoint: 'data/checkpoints/default' },
      data: { trainFile: `${dir}/tasks.jsonl` },
    }).finally(() => rmSync(dir, { recursive: true, force: true }));
    expect(inside.status).toBe(201);
    const before = (await call('GET', '/runs?limit=200')).body.length;
    const outside = await call('POST', '/runs', { name: 'escape', data: { trainFile: '/etc/passwd' } });
    expect(outside.status).toBe(422);
    expect(outside.body.message).toMatch(/trainFile: "\/etc\/passwd" is outside the data roots .*DATA_ROOTS/);
    expect((await call('GET', '/runs?limit=200')).body.length).toBe(before);
  });

  it('refuses a checkpoint folder or a task file that is not on disk with 422 naming it, and writes no run', async () => {
    const before = (await call('GET', '/runs?limit=200')).body.length;
    const checkpoint = await call('POST', '/runs', { name: 'x', model: { checkpoint: 'data/checkpoints/nope' } });
    expect(checkpoint.status).toBe(422);
    expect(checkpoint.body).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(checkpoint.body.message).toMatch(
      /^invalid body: body\.model\.checkpoint: checkpoint folder "data\/checkpoints\/nope" does not exist \(\/.*\/data\/checkpoints\/nope\)$/,
    );
    expect(checkpoint.body.details).toEqual([
      { path: ['body', 'model', 'checkpoint'], message: expect.any(String), code: 'not_found' },
    ]);
    const file = await call('POST', '/runs', { name: 'x', data: { trainFile: 'data/nope.jsonl' } });
    expect(file.status).toBe(422);
    expect(file.body.message).toMatch(/body\.data\.trainFile: file "data\/nope\.jsonl" does not exist/);
    expect((await call('GET', '/runs?limit=200')).body.length).toBe(before);
  });

  it('rejects malformed JSON with 400, and an oversized body with 413', async () => {
    const bad = await call('POST', '/runs', '{"name": "x",');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'INVALID_JSON' });
    expect(bad.body.message).toMatch(/not valid JSON/);
    // The body parser is strict: a top-level JSON string or number is not a request body.
    expect((await call('POST', '/runs', JSON.stringify('just text'))).status).toBe(400);
    const big = await call('POST', '/runs', { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body.code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('reading runs', () => {
  it('GET /runs/:id returns the run with its policy versions; an unknown id is 404', async () => {
    const reply = await call('GET', `/runs/${SEEDED_RUN}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: SEEDED_RUN,
      status: 'running',
      policyVersions: [{ version: 1, checkpointPath: '/ck/1' }],
    });
    for (const id of ['run-nope', 'a'.repeat(256), '%E2%9C%93']) {
      const missing = await call('GET', `/runs/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('RUN_NOT_FOUND');
    }
    const tooLong = await call('GET', `/runs/${'a'.repeat(257)}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.details[0].path).toEqual(['path', 'id']);
  });

  it('GET /runs validates its query', async () => {
    for (const query of ['limit=0', 'limit=abc', 'status=exploded', 'limit=1&limit=2', 'colour=red']) {
      const reply = await call('GET', `/runs?${query}`);
      expect(reply.status, query).toBe(422);
      expect(reply.body.details[0].path[0]).toBe('query');
    }
  });

  it('GET /runs/:id/steps returns the steps in order with their reward components', async () => {
    const reply = await call('GET', `/runs/${SEEDED_RUN}/steps`);
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((s: Json) => s.step)).toEqual([1, 2, 3]);
    expect(reply.body.items[1]).toMatchObject({ rewardMean: 0.4, kl: 0.02, timings: { generation: 1.5 } });
    expect(reply.body.items[2].components).toContainEqual(
      expect.objectContaining({ component: 'correctness', mean: 0.30000000000000004 }),
    );
    const from = await call('GET', `/runs/${SEEDED_RUN}/steps?fromStep=2&limit=1`);
    expect(from.body.items.map((s: Json) => s.step)).toEqual([2]);
    expect((await call('GET', '/runs/run-nope/steps')).status).toBe(404);
    expect((await call('GET', `/runs/${SEEDED_RUN}/steps?fromStep=-1`)).status).toBe(422);
  });
});

describe('GET /runs/:id/episodes', () => {
  /** Walks every page with `query`; returns the ids in the order served. */
  async function walk(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 100; page++) {
      const sep = query ? '&' : '';
      const reply = await call(
        'GET',
        `/runs/${SEEDED_RUN}/episodes?${query}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(reply.status).toBe(200);
      expect(reply.body.items.length).toBeLessThanOrEqual(limit);
      for (const item of reply.body.items) {
        expect(typeof item.id).toBe('string');
        expect(item.transcript).toBeUndefined();
        ids.push(item.id);
      }
      cursor = reply.body.nextCursor;
      if (cursor === null) return ids;
    }
    throw new Error('pagination never ended');
  }

  async function idsWhere(predicate: (e: EpisodeRecord) => boolean): Promise<string[]> {
    const rows = await db.prisma.episode.findMany({ where: { runId: SEEDED_RUN }, orderBy: { id: 'desc' } });
    return rows
      .filter((row) =>
        predicate({
          ...seeded.find((s) => s.step === row.step && s.groupId === row.groupId && s.sampleIndex === row.sampleIndex)!,
        }),
      )
      .map((row) => row.id.toString());
  }

  it('pages through every episode once, newest first', async () => {
    const ids = await walk('', 5);
    expect(ids).toHaveLength(seeded.length);
    expect(new Set(ids).size).toBe(seeded.length);
    expect(ids).toEqual(await idsWhere(() => true));
  });

  it.each([
    ['taskType=counting', (e: EpisodeRecord) => e.taskType === 'counting'],
    ['step=2', (e: EpisodeRecord) => e.step === 2],
    ['minReward=0.5', (e: EpisodeRecord) => e.reward >= 0.5],
    ['minReward=0.25&maxReward=0.75', (e: EpisodeRecord) => e.reward >= 0.25 && e.reward <= 0.75],
    [
      'minContextTokens=8192&maxContextTokens=12288',
      (e: EpisodeRecord) => e.contextTokens >= 8192 && e.contextTokens <= 12288,
    ],
    ['step=3&taskType=niah&minReward=0', (e: EpisodeRecord) => e.step === 3 && e.taskType === 'niah'],
  ])('filters by %s', async (query, predicate) => {
    const expected = await idsWhere(predicate);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(seeded.length);
    expect(await walk(query, 3)).toEqual(expected);
  });

  it('rejects bad filters with 422 and an unknown run with 404', async () => {
    for (const query of [
      'taskType=poetry',
      'minReward=high',
      'minReward=0.9&maxReward=0.1',
      'step=1.5',
      'limit=501',
      'cursor=abc',
      'cursor=99999999999999999999',
      'minContextTokens=9&maxContextTokens=1',
    ]) {
      const reply = await call('GET', `/runs/${SEEDED_RUN}/episodes?${query}`);
      expect(reply.status, query).toBe(422);
      expect(reply.body.code).toBe('VALIDATION_ERROR');
    }
    expect((await call('GET', '/runs/run-nope/episodes')).status).toBe(404);
  });

  it('GET /episodes/:id returns the full transcript and recursion tree, with the id as a string', async () => {
    const [first] = await walk('step=1&taskType=niah', 1);
    const reply = await call('GET', `/episodes/${first}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      id: first,
      runId: SEEDED_RUN,
      step: 1,
      taskType: 'niah',
      transcript: { turns: [{ observation: '1' }] },
      recursionTree: [{ depth: 1, prompt: 'where?', chunkChars: 500, answer: 'here', latencyMs: 12 }],
    });
    expect((await call('GET', '/episodes/999999999')).body.code).toBe('EPISODE_NOT_FOUND');
    expect((await call('GET', '/episodes/999999999')).status).toBe(404);
    expect((await call('GET', '/episodes/abc')).status).toBe(422);
    expect((await call('GET', '/episodes/-1')).status).toBe(422);
  });
});

describe('stop and resume', () => {
  it('follow the status machine and answer 409 on an invalid transition', async () => {
    const runs = new RunRepository(db.prisma);
    const { body: run } = await call('POST', '/runs', { name: 'machine' });
    expect((await call('POST', `/runs/${run.id}/resume`)).status).toBe(409);
    await runs.setStatus(run.id, 'running');
    const stopped = await call('POST', `/runs/${run.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.status).toBe('stopping');
    await runs.setStatus(run.id, 'stopped');
    expect((await call('POST', `/runs/${run.id}/stop`)).body.status).toBe('stopped');
    const resumed = await call('POST', `/runs/${run.id}/resume`);
    expect(resumed.body).toMatchObject({ status: 'running' });
    const stopping = await call('POST', `/runs/${run.id}/stop`);
    expect(stopping.body.status).toBe('stopping');
    const conflict = await call('POST', `/runs/${run.id}/resume`);
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ code: 'INVALID_TRANSITION', details: { status: 'stopping' } });
    expect(conflict.body.message).toBe(`cannot resume run ${run.id}: it is stopping`);
    await runs.setStatus(run.id, 'stopped');
    await runs.setStatus(run.id, 'running');
    await runs.setStatus(run.id, 'completed');
    expect((await call('POST', `/runs/${run.id}/stop`)).status).toBe(409);
    expect((await call('POST', `/runs/${run.id}/resume`)).status).toBe(409);
    expect((await call('POST', '/runs/run-nope/stop')).status).toBe(404);
    expect((await call('POST', '/runs/run-nope/resume')).status).toBe(404);
  });
});

describe('POST /evals and GET /queues', () => {
  it('queues an eval.run job that GET /queues counts', async () => {
    const before = await call('GET', '/queues');
    expect(before.status).toBe(200);
    expect(before.body.queues.map((q: Json) => q.queue)).toEqual(['rollout', 'reward', 'learn', 'eval']);
    const accepted = await call('POST', '/evals', { checkpoint: 'out/ck/1', runId: SEEDED_RUN, limit: 10 });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      status: 'queued',
      job: { checkpoint: 'out/ck/1', split: 'eval', runId: SEEDED_RUN, limit: 10, seed: 0 },
    });
    expect(accepted.body.jobId).toBe(`eval-${accepted.body.evalId}`);
    const transport = new BullMqTransport({ redisUrl: TEST_REDIS_URL, prefix: h.queuePrefix });
    expect(await transport.getJobData('eval', accepted.body.jobId)).toEqual(accepted.body.job);
    await transport.close();
    const after = await call('GET', '/queues');
    const evalQueue = after.body.queues.find((q: Json) => q.queue === 'eval');
    expect(evalQueue).toEqual({
      queue: 'eval',
      waiting: 1,
      active: 0,
      delayed: 0,
      completed: 0,
      failed: 0,
      deadLettered: 0,
    });
    expect(deadLetterQueueOf('eval')).toBe('eval-dead');
  });

  it('GET /queues/:name/failed lists failed jobs with their reasons', async () => {
    const transport = new BullMqTransport({ redisUrl: TEST_REDIS_URL, prefix: h.queuePrefix });
    await transport.add(
      'learn',
      { id: 'run-x:1:s1-g0', name: 'learn.group', data: { broken: true } },
      { attempts: 1, backoffMs: 0, keepCompletedS: 60, keepFailedS: 60 },
    );
    const worker = transport.work(
      'learn',
      async () => {
        throw new Error('malformed learn.group payload: runId: required');
      },
      { concurrency: 1 },
    );
    await expect.poll(async () => (await transport.counts('learn')).failed, { timeout: 5000 }).toBe(1);
    await worker.close(0);
    await transport.close();
    const reply = await call('GET', '/queues/learn/failed?limit=5');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      queue: 'learn',
      items: [
        {
          id: 'run-x:1:s1-g0',
          name: 'learn.group',
          reason: 'malformed learn.group payload: runId: required',
          attemptsMade: 1,
        },
      ],
    });
    const unknown = await call('GET', '/queues/train/failed');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('QUEUE_NOT_FOUND');
    expect((await call('GET', '/queues/learn/failed?limit=0')).status).toBe(422);
  });

  it('rejects a bad eval request with 422 and an unknown run with 404', async () => {
    for (const body of [
      { split: 'train' },
      { limit: 0 },
      { checkpoint: 7 },
      { extra: true },
      { checkpoint: '/root' },
    ]) {
      const reply = await call('POST', '/evals', body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
    }
    const unknown = await call('POST', '/evals', { runId: 'run-nope' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('RUN_NOT_FOUND');
    expect((await call('POST', '/evals', '{oops')).status).toBe(400);
  });
});

describe('operations', () => {
  it('/health reports both dependencies up', async () => {
    const reply = await call('GET', '/health');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'healthy', checks: { postgres: 'ok', redis: 'ok' } });
  });

  it('/metrics serves queue depths and request counts by route pattern', async () => {
    await call('GET', `/runs/${SEEDED_RUN}`);
    const reply = await call('GET', '/metrics');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/text\/plain/);
    expect(reply.body).toMatch(/fathom_queue_jobs\{queue="eval",state="waiting",service="admin-api"\} \d/);
    expect(reply.body).toMatch(
      /fathom_admin_http_requests_total\{method="GET",route="\/runs\/:id",status="200",service="admin-api"\} [1-9]/,
    );
    expect(reply.body).toMatch(/process_cpu_seconds_total/);
  });

  it('/docs serves the OpenAPI document and a page listing it', async () => {
    const doc = await call('GET', '/docs/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining([
        '/runs',
        '/runs/{id}',
        '/runs/{id}/steps',
        '/runs/{id}/episodes',
        '/episodes/{id}',
        '/runs/{id}/stop',
        '/runs/{id}/resume',
        '/evals',
        '/queues',
      ]),
    );
    expect(doc.body.components.schemas.RunConfig.properties.grpo).toBeDefined();
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('/runs/{id}/episodes');
  });

  it('answers an unknown route with 404 in the error shape, and logs JSON lines with the route', async () => {
    const reply = await call('GET', '/nowhere');
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ code: 'ROUTE_NOT_FOUND' });
    const lines = h.logs.map((l) => JSON.parse(l));
    expect(lines).toContainEqual(
      expect.objectContaining({ service: 'admin-api', msg: 'request', route: '/runs/:id', status: 200 }),
    );
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});

describe('GET /runs/:id/series', () => {
  it('returns the step metrics as columns, from Step columns and Step.metrics, null where not recorded', async () => {
    const reply = await call('GET', `/runs/${SEEDED_RUN}/series`);
    expect(reply.status).toBe(200);
    const steps = [1, 2, 3];
    expect(reply.body).toEqual({
      runId: SEEDED_RUN,
      steps,
      series: {
        reward_mean: steps.map((s) => 0.2 * s),
        frac_reward_zero_std: [0.25, 0.25, 0.25],
        kl: steps.map((s) => 0.01 * s),
        loss: steps.map((s) => 0.5 / s),
        clip_ratio: [0.1, 0.1, 0.1],
        completion_length: [120, 120, 120],
        llm_calls: [null, null, null],
        tokens_per_s: [null, null, null],
      },
      components: { correctness: steps.map((s) => 0.1 * s), format: [1, 1, 1] },
    });
    const later = await call('GET', `/runs/${SEEDED_RUN}/series?fromStep=3`);
    expect(later.body.steps).toEqual([3]);
    expect(later.body.components.correctness).toEqual([0.1 * 3]);
    expect((await call('GET', `/runs/${SEEDED_RUN}/series?fromStep=4`)).body).toMatchObject({
      steps: [],
      components: {},
    });
    expect((await call('GET', '/runs/run-nope/series')).status).toBe(404);
    expect((await call('GET', `/runs/${SEEDED_RUN}/series?fromStep=-1`)).status).toBe(422);
  });
});

describe('GET /runs latestStep, GET /evals and GET /evals/:id', () => {
  it('lists each run with its newest step and mean reward, null before the first step', async () => {
    const list = await call('GET', '/runs');
    const seededRun = list.body.find((r: Json) => r.id === SEEDED_RUN);
    expect(seededRun.latestStep).toEqual({ step: 3, rewardMean: 0.2 * 3 });
    const created = await call('POST', '/runs', { name: 'no-steps-yet' });
    const fresh = (await call('GET', '/runs')).body.find((r: Json) => r.id === created.body.id);
    expect(fresh.latestStep).toBeNull();
  });

  it('lists evaluations with results and returns one with its rows; an unknown eval is 404', async () => {
    expect((await call('GET', '/evals')).body).toEqual([]);
    const row = { split: 'eval', n: 10, meanTokens: 500, meanLlmCalls: 1 };
    await new EvalRepository(db.prisma).recordMany([
      { ...row, evalId: 'ev-a', checkpoint: 'default', taskType: 'all', lengthBucket: 'all', accuracy: 0.25 },
      { ...row, evalId: 'ev-a', checkpoint: 'default', taskType: 'niah', lengthBucket: '4-16K', accuracy: 0.5 },
      {
        ...row,
        evalId: 'ev-b',
        checkpoint: '/ck/1',
        runId: SEEDED_RUN,
        taskType: 'all',
        lengthBucket: 'all',
        accuracy: 0.75,
      },
    ]);
    const list = await call('GET', '/evals');
    expect(list.status).toBe(200);
    expect(list.body.map((e: Json) => [e.evalId, e.checkpoint, e.split, e.runId, e.rows])).toEqual(
      expect.arrayContaining([
        ['ev-a', 'default', 'eval', null, 2],
        ['ev-b', '/ck/1', 'eval', SEEDED_RUN, 1],
      ]),
    );
    const one = await call('GET', '/evals/ev-a');
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ evalId: 'ev-a', checkpoint: 'default', rows: 2 });
    expect(one.body.results.map((r: Json) => [r.taskType, r.lengthBucket, r.accuracy, typeof r.id])).toEqual([
      ['all', 'all', 0.25, 'string'],
      ['niah', '4-16K', 0.5, 'string'],
    ]);
    const missing = await call('GET', '/evals/ev-nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'EVAL_NOT_FOUND' });
    const doc = await call('GET', '/docs/openapi.json');
    expect(doc.body.paths['/evals'].get).toBeDefined();
    expect(doc.body.paths['/evals/{id}'].get).toBeDefined();
  });
});

describe('the dashboard files', () => {
  it('serves the page, its modules and uPlot, and redirects / to it', async () => {
    const root = await fetch(`${h.baseUrl}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard/');
    const page = await call('GET', '/dashboard/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.body).toContain('<main id="main"');
    const app = await call('GET', '/dashboard/app.js');
    expect(app.headers.get('content-type')).toMatch(/javascript/);
    const uplot = await call('GET', '/dashboard/vendor/uPlot.esm.js');
    expect(uplot.status).toBe(200);
    expect(uplot.body).toMatch(/export \{ uPlot as default \}|export default/);
    expect((await call('GET', '/dashboard/nope.js')).status).toBe(404);
  });
});
