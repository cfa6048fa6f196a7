import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { groupId, RunConfigSchema, type RewardGroupJob } from '@fathom/contracts';
import { loadCheckpoint } from '@fathom/model';
import { createLogger, createMetricsRegistry } from '@fathom/observability';
import {
  applyMigrations,
  createPrismaClient,
  dropDatabase,
  ensureDatabase,
  RunRepository,
  type PrismaClient,
} from '@fathom/persistence';
import { SandboxPool } from '@fathom/sandbox';
import { DEFAULT_POLICY_DIR, loadRunConfig, RunContextCache } from '@fathom/training';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FrozenPolicyCache } from './frozen-policy.cache';
import { RolloutMetrics } from './metrics';
import { PolicyCache } from './policy.cache';
import { RolloutService } from './rollout.service';

/**
 * A rollout setting changed through the one run-config schema — a `--set` override of a config file, as
 * `fathom train --set` gives it — is stored with the run (the real Postgres of the machine) and bounds the episodes a
 * rollout worker samples for that run: the worker reads it back from the Run row, as in production.
 */
const DATABASE_URL = `postgresql://postgres@127.0.0.1:5432/fathom_test_rollout_settings_${process.pid}`;
const RUN_ID = 'run-settings';
const MAX_TOKENS_PER_TURN = 24;

let prisma: PrismaClient;
let dir: string;
let sandbox: SandboxPool;
let policies: PolicyCache;
let frozen: FrozenPolicyCache;

beforeAll(async () => {
  await dropDatabase(DATABASE_URL);
  await ensureDatabase(DATABASE_URL);
  await applyMigrations(DATABASE_URL);
  prisma = createPrismaClient(DATABASE_URL);
  dir = await mkdtemp(join(tmpdir(), 'fathom-rollout-settings-'));
  sandbox = await SandboxPool.start({ workers: 1 });
  // The learner's weights of version 0 are the starting checkpoint's.
  const configJson = await readFile(join(DEFAULT_POLICY_DIR, 'config.json'), 'utf8');
  const { params } = await loadCheckpoint(DEFAULT_POLICY_DIR);
  policies = new PolicyCache({ getWeights: async () => ({ configJson, params }) });
  frozen = new FrozenPolicyCache();
}, 60_000);

afterAll(async () => {
  await policies?.close();
  await frozen?.close();
  await sandbox?.close();
  await prisma?.$disconnect();
  await dropDatabase(DATABASE_URL);
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

describe('a rollout setting of the run config', () => {
  it('reaches the stored run and the episodes a rollout worker samples for it', async () => {
    const file = join(dir, 'run.json');
    const data = { trainSize: 1, minContextTokens: 512, maxContextTokens: 1024 };
    await writeFile(file, JSON.stringify({ name: 'settings', data, grpo: { groupSize: 2 } }));
    const run = await loadRunConfig(file, ['rollout.maxTurns=1', `rollout.maxTokensPerTurn=${MAX_TOKENS_PER_TURN}`]);

    const runs = new RunRepository(prisma);
    await runs.create({ id: RUN_ID, name: run.name, config: run });
    const stored = RunConfigSchema.parse((await runs.get(RUN_ID))?.config);
    expect(stored.rollout).toMatchObject({
      maxTurns: 1,
      maxTokensPerTurn: MAX_TOKENS_PER_TURN,
      maxEpisodeTokens: 4096,
    });

    const contexts = new RunContextCache(runs);
    const context = await contexts.get(RUN_ID);
    const [taskId] = context.tasks.keys();
    expect(context.train.episode).toMatchObject({ maxTurns: 1, maxTokensPerTurn: MAX_TOKENS_PER_TURN });

    const service = new RolloutService({
      runs,
      contexts,
      policies,
      frozen,
      sandbox,
      environment: false,
      producer: { enqueue: vi.fn() },
      metrics: new RolloutMetrics(createMetricsRegistry({ service: 'test', defaultMetrics: false })),
    });
    const job = { runId: RUN_ID, step: 1, groupId: groupId(1, 0), taskId, policyVersion: 0, G: 2, seed: 7 };
    const reward: RewardGroupJob = await service.rollout(job, createLogger({ service: 'test', level: 'silent' }));
    expect(reward.trajectories.length + reward.excluded.length).toBe(2);
    expect(reward.trajectories.length).toBeGreaterThan(0);
    for (const trajectory of reward.trajectories) {
      expect(trajectory.turns.length).toBeLessThanOrEqual(1);
      expect(trajectory.tokens.completion).toBeLessThanOrEqual(MAX_TOKENS_PER_TURN);
    }
    // The default model's first turn is longer than 24 tokens: the setting is what ended its episodes.
    expect(reward.trajectories.some((t) => t.stopReason === 'token_limit')).toBe(true);
  }, 120_000);
});
