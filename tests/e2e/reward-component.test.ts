import { startAdminApi, loadConfig as adminConfig, type RunningAdminApi } from '@fathom/admin-api';
import { groupId, type EpisodeTrajectory, type LearnGroupJob, type RewardGroupJob } from '@fathom/contracts';
import { createLogger, createMetricsRegistry } from '@fathom/observability';
import {
  createPrismaClient,
  dropDatabase,
  EpisodeRepository,
  MIGRATIONS_DIR,
  RunRepository,
  type PrismaClient,
} from '@fathom/persistence';
import { deleteQueuePrefix, samplePayloads } from '@fathom/queue/testing';
import { RewardMetrics, RewardService } from '@fathom/reward-service';
import { registerRewardComponent } from '@fathom/rewards';
import { RunContextCache } from '@fathom/training';
import { existsSync, readdirSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from './support';

/**
 * A reward component added in one place flows through the whole stack with no migration: registered here and named
 * in a run's config, it is composed into the reward by the reward-service, stored in the Episode row, reported as a
 * metric, served by the admin API and drawn by the dashboard.
 */

/** 1 for an empty answer, falling linearly to 0 at 20 characters: short answers are better. */
registerRewardComponent({
  name: 'answer_brevity',
  requiresCorrectAnswer: false,
  score: ({ extracted }) => (extracted.answer === null ? 0 : Math.max(0, 1 - extracted.answer.length / 20)),
});

const WEIGHTS = { correctness: 0.6, token_budget: 0.15, recursion_efficiency: 0.15, answer_brevity: 0.1 };
const TOKEN = 'reward-component-test-token-0123456789';
const REDIS_URL = 'redis://127.0.0.1:6379';
const QUEUE_PREFIX = `fathom-test-reward-component-${process.pid}`;
const DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/fathom_test_reward_component_${process.pid}`;
/** Debian's chromium package (scripts/ensure-chromium.sh); CHROMIUM_PATH overrides it. */
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let prisma: PrismaClient;
let api: RunningAdminApi;
let runId: string;
let gold: string;
let learn: LearnGroupJob;
let metrics: RewardMetrics;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- replies are checked field by field
async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${api.port}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** A trajectory of the sample payloads that answers `answer` in its one turn. */
function answering(base: EpisodeTrajectory, taskId: string, answer: string): EpisodeTrajectory {
  const [turn] = base.turns;
  return { ...base, taskId, answer, turns: [{ ...turn, completion: `<answer>${answer}</answer>` }] };
}

beforeAll(async () => {
  await freshDatabase(DATABASE_URL);
  prisma = createPrismaClient(DATABASE_URL);
  const config = adminConfig({
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    DATABASE_URL,
    REDIS_URL,
    QUEUE_PREFIX,
    ADMIN_TOKEN: TOKEN,
    LOG_LEVEL: 'silent',
  });
  api = await startAdminApi(config);
  const created = await call('POST', '/runs', {
    name: 'brevity',
    steps: 1,
    data: { trainSize: 1, minContextTokens: 4096, maxContextTokens: 4096 },
    reward: { weights: WEIGHTS },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  runId = created.body.id;

  const runs = new RunRepository(prisma);
  const contexts = new RunContextCache(runs);
  const [task] = (await contexts.get(runId)).tasks.values();
  gold = task.answer;
  const sample = samplePayloads(groupId(1, 0))['reward.group'];
  const job: RewardGroupJob = {
    ...sample,
    runId,
    taskId: task.id,
    trajectories: [
      answering(sample.trajectories[0], task.id, gold),
      answering(sample.trajectories[1], task.id, 'certainly not the answer'),
    ],
  };
  metrics = new RewardMetrics(createMetricsRegistry({ service: 'test', defaultMetrics: false }));
  const service = new RewardService({
    runs,
    contexts,
    episodes: new EpisodeRepository(prisma),
    producer: {
      enqueue: async (_name, payload) => {
        learn = payload as LearnGroupJob;
        return { jobId: 'learn', added: true };
      },
    },
    metrics,
  });
  await service.handle(job, createLogger({ service: 'test', level: 'silent' }));
}, 120_000);

afterAll(async () => {
  await api?.close();
  await deleteQueuePrefix(QUEUE_PREFIX, REDIS_URL);
  await prisma?.$disconnect();
  await dropDatabase(DATABASE_URL);
});

describe('a reward component registered in one file and named in the run config', () => {
  it('is composed into the reward with its weight', () => {
    const [right, wrong] = learn.reward!.results;
    const brevity = Math.max(0, 1 - gold.length / 20);
    expect(right.components.answer_brevity).toBeCloseTo(brevity, 12);
    expect(wrong.components.answer_brevity).toBe(0);
    const c = right.components;
    expect(right.total).toBeCloseTo(
      0.6 * c.correctness + 0.15 * c.token_budget + 0.15 * c.recursion_efficiency + 0.1 * brevity + 0.1 * c.format,
      12,
    );
    expect(c.correctness).toBe(1);
    expect(learn.reward!.perComponent.answer_brevity.mean).toBeCloseTo(brevity / 2, 12);
  });

  it('is reported by the fathom_reward_component metric under its name', async () => {
    const gauge = await metrics.component.get();
    const sample = gauge.values.find((v) => v.labels.component === 'answer_brevity');
    expect(sample?.value).toBeCloseTo(learn.reward!.perComponent.answer_brevity.mean, 12);
  });

  it('is stored in the Episode rows and served by the admin API, with no migration', async () => {
    const migrations = readdirSync(MIGRATIONS_DIR).filter((name) => /^\d+_/.test(name));
    const applied = await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM "_prisma_migrations"`;
    expect(Number(applied[0].n)).toBe(migrations.length);

    const list = await call('GET', `/runs/${runId}/episodes`);
    expect(list.status).toBe(200);
    const items = [...list.body.items].sort(
      (a: { sampleIndex: number }, b: { sampleIndex: number }) => a.sampleIndex - b.sampleIndex,
    );
    expect(items.map((e: { rewardComponents: Record<string, number> }) => e.rewardComponents.answer_brevity)).toEqual(
      learn.reward!.results.map((r) => r.components.answer_brevity),
    );
    const one = await call('GET', `/episodes/${items[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body.rewardComponents).toEqual(learn.reward!.results[0].components);
    expect(one.body.reward).toBe(learn.reward!.results[0].total);
  });

  it.skipIf(!existsSync(CHROMIUM_PATH))('is drawn by the dashboard on the episode pages', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${api.port}/`);
      await page.getByLabel('Admin token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForSelector('main[data-ready="runs"]');
      await page.evaluate(`location.hash = ${JSON.stringify(`#/runs/${runId}/episodes`)}`);
      await page.waitForSelector('main[data-ready="episodes"]');
      const headers = await page.$$eval('main thead th', (cells) => cells.map((c) => c.textContent?.trim()));
      expect(headers).toContain('answer_brevity');
      await page.locator('main tbody tr a').first().click();
      await page.waitForSelector('main[data-ready="episode"]');
      const rows = await page.$$eval('.reward-table tbody tr', (trs) =>
        trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent?.trim())),
      );
      expect(rows.map((r) => r[0])).toEqual([
        'total',
        'answer_brevity',
        'correctness',
        'format',
        'recursion_efficiency',
        'token_budget',
      ]);
    } finally {
      await browser.close();
    }
  });
});
