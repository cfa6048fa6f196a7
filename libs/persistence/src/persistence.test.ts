import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cpSync, mkdtempSync, appendFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { RunConfigSchema, type OptimizerSettings } from '@fathom/contracts';
import {
  applyMigrations,
  createPrismaClient,
  dropDatabase,
  ensureDatabase,
  EpisodeRepository,
  EvalRepository,
  MIGRATIONS_DIR,
  PolicyVersionRepository,
  RunRepository,
  StepRepository,
  type EpisodeRecord,
  type PrismaClient,
  type StepRecord,
} from './index';

/** The migration that moved Episode's four reward columns into one JSONB map. */
const COMPONENTS_MIGRATION = '20261207000000_episode_reward_components';
/** The migration that renamed the run config's optimizer.learningRate and minLearningRate to lr and minLr. */
const OPTIMIZER_NAMES_MIGRATION = '20261207100000_run_config_optimizer_names';
const server = process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432';
const dbName = `fathom_test_persistence_${process.pid}`;
const url = `${server}/${dbName}`;
let prisma: PrismaClient;

beforeAll(async () => {
  await dropDatabase(url);
  expect(await ensureDatabase(url)).toBe(true);
  prisma = createPrismaClient(url);
});

afterAll(async () => {
  await prisma?.$disconnect();
  await dropDatabase(url);
});

/** A run config's optimizer section as a Run row stored it before OPTIMIZER_NAMES_MIGRATION. */
function namedAsBefore({ lr, minLr, ...rest }: OptimizerSettings): Record<string, number> {
  return { ...rest, learningRate: lr, ...(minLr === undefined ? {} : { minLearningRate: minLr }) };
}

/** A fresh database at `databaseUrl` with every migration before `migration` applied. */
async function migratedUpTo(migration: string, databaseUrl: string): Promise<void> {
  const before = mkdtempSync(join(tmpdir(), 'fathom-migrations-'));
  for (const name of readdirSync(MIGRATIONS_DIR).filter((n) => /^\d+_/.test(n) && n < migration)) {
    cpSync(join(MIGRATIONS_DIR, name), join(before, name), { recursive: true });
  }
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl, before);
}

describe('migrations', () => {
  it('apply once, concurrently safe, then are no-ops', async () => {
    const names = readdirSync(MIGRATIONS_DIR).filter((n) => /^\d+_/.test(n));
    const [a, b] = await Promise.all([applyMigrations(url), applyMigrations(url)]);
    expect([...a.applied, ...b.applied].sort()).toEqual(names.sort());
    const again = await applyMigrations(url);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toEqual(names.sort());
    expect(await ensureDatabase(url)).toBe(false);
  });

  it('refuse a migration edited after it was applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-migrations-'));
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    const first = readdirSync(dir).filter((n) => /^\d+_/.test(n))[0];
    appendFileSync(join(dir, first, 'migration.sql'), '\n-- edited\n');
    await expect(applyMigrations(url, dir)).rejects.toThrow(new RegExp(`migration ${first} was changed after`));
  });

  it("move an episode's per-component reward columns into its rewardComponents map", async () => {
    const oldUrl = `${url}_components`;
    await migratedUpTo(COMPONENTS_MIGRATION, oldUrl);
    const client = new pg.Client({ connectionString: oldUrl });
    await client.connect();
    try {
      await client.query(`INSERT INTO "Run" (id, name, config, "updatedAt") VALUES ('r', 'r', '{}', now())`);
      await client.query(
        `INSERT INTO "Episode" ("runId", step, "groupId", "sampleIndex", "taskId", "taskType", "contextTokens",
           "policyVersion", status, reward, "rewardCorrectness", "rewardFormat", "rewardTokenBudget",
           "rewardRecursionEfficiency", "llmCalls", tokens, turns, "goldAnswer", transcript, "recursionTree")
         VALUES ('r', 1, 'g', 0, 't', 'niah', 4096, 0, 'ok', 0.9625, 1, 1, 0.25, 0.75, 1, 10, 1, 'red', '{}', '{}')`,
      );
      expect((await applyMigrations(oldUrl)).applied).toEqual([COMPONENTS_MIGRATION, OPTIMIZER_NAMES_MIGRATION]);
      const { rows } = await client.query(`SELECT * FROM "Episode"`);
      expect(rows[0].rewardComponents).toEqual({
        correctness: 1,
        token_budget: 0.25,
        recursion_efficiency: 0.75,
        format: 1,
      });
      expect(Object.keys(rows[0]).filter((column) => /^reward./.test(column))).toEqual(['rewardComponents']);
    } finally {
      await client.end();
      await dropDatabase(oldUrl);
    }
  });
  it("rename a stored run config's optimizer.learningRate and minLearningRate to lr and minLr", async () => {
    const oldUrl = `${url}_optimizer`;
    await migratedUpTo(OPTIMIZER_NAMES_MIGRATION, oldUrl);
    const current = RunConfigSchema.parse({ name: 'old', optimizer: { lr: 1e-4, warmupSteps: 5, minLr: 1e-5 } });
    const constant = RunConfigSchema.parse({ name: 'constant', optimizer: { lr: 2e-5 } });
    const stored = [
      ['old', { ...current, optimizer: namedAsBefore(current.optimizer) }],
      ['constant', { ...constant, optimizer: namedAsBefore(constant.optimizer) }],
      ['empty', {}],
    ] as const;
    const client = new pg.Client({ connectionString: oldUrl });
    await client.connect();
    const migrated = createPrismaClient(oldUrl);
    try {
      for (const [id, config] of stored) {
        await client.query(`INSERT INTO "Run" (id, name, config, "updatedAt") VALUES ($1, $1, $2, now())`, [
          id,
          JSON.stringify(config),
        ]);
      }
      expect((await applyMigrations(oldUrl)).applied).toEqual([OPTIMIZER_NAMES_MIGRATION]);
      const runs = new RunRepository(migrated);
      expect(RunConfigSchema.parse((await runs.get('old'))?.config)).toEqual(current);
      expect(RunConfigSchema.parse((await runs.get('constant'))?.config)).toEqual(constant);
      expect((await runs.get('empty'))?.config).toEqual({});
    } finally {
      await migrated.$disconnect();
      await client.end();
      await dropDatabase(oldUrl);
    }
  });
});

describe('repositories', () => {
  const runId = 'run-1';

  it('RunRepository: create is idempotent, status follows the state machine', async () => {
    const runs = new RunRepository(prisma);
    const created = await runs.create({ id: runId, name: 'demo', config: { lr: 1e-3 } });
    const again = await runs.create({ id: runId, name: 'other', config: {} });
    expect(again.name).toBe('demo');
    expect(created.status).toBe('pending');
    const running = await runs.setStatus(runId, 'running');
    expect(running.startedAt).toBeInstanceOf(Date);
    expect((await runs.setStatus(runId, 'running')).updatedAt).toEqual(running.updatedAt);
    await expect(runs.setStatus(runId, 'pending')).rejects.toThrow(/cannot go from running to pending/);
    await expect(runs.setStatus('nope', 'running')).rejects.toThrow(/run nope does not exist/);
    expect((await runs.list({ status: 'running' })).map((r) => r.id)).toEqual([runId]);
  });

  it('RunRepository.endedStatus: set once a run stopped, completed or failed; null while it may train', async () => {
    const runs = new RunRepository(prisma);
    await runs.create({ id: 'run-ended', name: 'ended', config: {} });
    expect(await runs.endedStatus('run-ended')).toBeNull();
    await runs.setStatus('run-ended', 'running');
    await runs.setStatus('run-ended', 'stopping');
    expect(await runs.endedStatus('run-ended')).toBeNull();
    await runs.setStatus('run-ended', 'stopped');
    expect(await runs.endedStatus('run-ended')).toBe('stopped');
    expect(await runs.endedStatus('no-such-run')).toBeNull();
  });

  it('PolicyVersionRepository: one row per version', async () => {
    const versions = new PolicyVersionRepository(prisma);
    await versions.record({ runId, version: 0, step: 0 });
    await versions.record({ runId, version: 1, step: 1, checkpointPath: '/ckpt/1' });
    await versions.record({ runId, version: 1, step: 1, checkpointPath: '/other' });
    expect(await versions.latest(runId)).toMatchObject({ version: 1, checkpointPath: '/ckpt/1' });
    expect(await versions.list(runId)).toHaveLength(2);
  });

  it('StepRepository: a step and its components are written once, NaN is refused', async () => {
    const steps = new StepRepository(prisma);
    const record: StepRecord = {
      runId,
      step: 1,
      policyVersion: 0,
      loss: 0.12,
      kl: 0.003,
      clipRatio: 0.01,
      rewardMean: 0.4,
      rewardStd: 0.2,
      fracRewardZeroStd: 0.25,
      groupsSubmitted: 4,
      groupsTrainable: 3,
      tokens: 1234,
      timings: { generation: 1.5, update: 0.3 },
      metrics: { entropy: 1.1 },
      components: [
        { component: 'correctness', mean: 0.5, std: 0.5 },
        { component: 'format', mean: 0.9, std: 0.1 },
      ],
    };
    expect(await steps.record(record)).toBe(true);
    expect(await steps.record({ ...record, loss: 99 })).toBe(false);
    await expect(steps.record({ ...record, step: 2, kl: Number.NaN })).rejects.toThrow(
      /step 2 of run run-1: kl must be a finite number/,
    );
    const rows = await steps.list(runId);
    expect(rows).toHaveLength(1);
    expect(rows[0].loss).toBe(0.12);
    expect(rows[0].components.map((c) => c.component).sort()).toEqual(['correctness', 'format']);
  });

  it('StepRepository: a step advances its run in the same transaction, never backwards', async () => {
    const runs = new RunRepository(prisma);
    const steps = new StepRepository(prisma);
    await runs.create({ id: 'run-progress', name: 'progress', config: {} });
    const step = (n: number, policyVersion: number): StepRecord => ({
      runId: 'run-progress',
      step: n,
      policyVersion,
      loss: 0,
      kl: 0,
      clipRatio: 0,
      rewardMean: 0,
      rewardStd: 0,
      fracRewardZeroStd: 0,
      groupsSubmitted: 1,
      groupsTrainable: 1,
      tokens: 1,
      timings: {},
      metrics: {},
      components: [],
    });
    await steps.record(step(2, 2));
    expect(await runs.get('run-progress')).toMatchObject({ step: 2, policyVersion: 2 });
    await steps.record(step(1, 1));
    expect(await runs.get('run-progress')).toMatchObject({ step: 2, policyVersion: 2 });
    // A component written twice fails inside the transaction: neither the step nor the run's progress is kept.
    const twice = { ...step(3, 3), components: [0, 1].map(() => ({ component: 'format', mean: 0, std: 0 })) };
    await expect(steps.record(twice)).rejects.toThrow();
    expect(await runs.get('run-progress')).toMatchObject({ step: 2, policyVersion: 2 });
    expect((await steps.list('run-progress')).map((s) => s.step)).toEqual([1, 2]);
  });

  it('EpisodeRepository: a re-delivered group inserts nothing; filters and pagination', async () => {
    const episodes = new EpisodeRepository(prisma);
    const make = (sampleIndex: number, reward: number, taskType = 'niah'): EpisodeRecord => ({
      runId,
      step: 1,
      groupId: 's1-g0',
      sampleIndex,
      taskId: 'train-000001',
      taskType,
      contextTokens: 4096 * (sampleIndex + 1),
      policyVersion: 0,
      status: 'ok',
      reward,
      rewardComponents: { correctness: reward > 0.5 ? 1 : 0, token_budget: 0.8, recursion_efficiency: 1, format: 1 },
      llmCalls: sampleIndex,
      tokens: 100,
      turns: 2,
      answer: 'blue',
      goldAnswer: 'blue',
      transcript: { turns: [{ completion: 'x', observation: 'y' }] },
      recursionTree: { children: [] },
    });
    const group = [make(0, 1.0), make(1, 0.2), make(2, 0.9, 'counting'), make(3, 0.1)];
    expect(await episodes.recordMany(group)).toBe(4);
    expect(await episodes.recordMany(group)).toBe(0);
    const high = await episodes.list(runId, { minReward: 0.5 });
    expect(high.items.map((e) => e.sampleIndex).sort()).toEqual([0, 2]);
    expect((await episodes.list(runId, { taskType: 'counting' })).items).toHaveLength(1);
    expect((await episodes.list(runId, { maxContextTokens: 8192 })).items).toHaveLength(2);
    const first = await episodes.list(runId, {}, { limit: 3 });
    expect(first.items).toHaveLength(3);
    const second = await episodes.list(runId, {}, { limit: 3, cursor: first.nextCursor! });
    expect(second.items).toHaveLength(1);
    expect(second.nextCursor).toBeNull();
    const full = await episodes.get(first.items[0].id);
    expect(full?.transcript).toEqual({ turns: [{ completion: 'x', observation: 'y' }] });
    expect(full?.rewardComponents).toEqual({ correctness: 0, token_budget: 0.8, recursion_efficiency: 1, format: 1 });
    expect(high.items.find((e) => e.sampleIndex === 0)?.rewardComponents.correctness).toBe(1);
    await expect(episodes.recordMany([{ ...make(9, Number.POSITIVE_INFINITY) }])).rejects.toThrow(
      /reward must be a finite/,
    );
    const nan = { ...make(9, 0.5), rewardComponents: { correctness: Number.NaN } };
    await expect(episodes.recordMany([nan])).rejects.toThrow(/reward component: correctness must be a finite number/);
  });

  it('EpisodeRepository: stores what a policy wrote even when it contains NUL (Postgres cannot)', async () => {
    const episodes = new EpisodeRepository(prisma);
    const nul = 'ab\u0000c';
    const record: EpisodeRecord = {
      runId,
      step: 7,
      groupId: 'g-nul',
      sampleIndex: 0,
      taskId: 'train-000002',
      taskType: 'niah',
      contextTokens: 4096,
      policyVersion: 0,
      status: 'ok',
      reward: 0.1,
      rewardComponents: { correctness: 0, token_budget: 0.5, recursion_efficiency: 0, format: 1 },
      llmCalls: 0,
      tokens: 10,
      turns: 1,
      answer: nul,
      goldAnswer: 'blue',
      transcript: { turns: [{ completion: nul, observation: null }] },
      recursionTree: { prompt: nul, children: [] },
    };
    expect(await episodes.recordMany([record])).toBe(1);
    const [stored] = (await episodes.list(runId, { step: 7 })).items;
    expect(stored.answer).toBe('ab\uFFFDc');
    const full = await episodes.get(stored.id);
    expect(full?.transcript).toEqual({ turns: [{ completion: 'ab\uFFFDc', observation: null }] });
  });

  it('EvalRepository: rows keyed by (evalId, taskType, lengthBucket)', async () => {
    const evals = new EvalRepository(prisma);
    const row = {
      evalId: 'e1',
      runId,
      checkpoint: 'data/sft',
      split: 'heldout',
      taskType: 'all',
      lengthBucket: 'all',
      n: 50,
      accuracy: 0.42,
      meanTokens: 300,
      meanLlmCalls: 0.5,
    };
    expect(await evals.recordMany([row, { ...row, taskType: 'niah', n: 20 }])).toBe(2);
    expect(await evals.recordMany([row])).toBe(0);
    expect(await evals.list({ checkpoint: 'data/sft' })).toHaveLength(2);
  });
});
