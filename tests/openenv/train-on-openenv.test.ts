import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RunConfigSchema } from '@fathom/contracts';
import { OpenEnvSandbox } from '@fathom/sandbox';
import { grpoTrainConfigOfRun, MetricsLog, runGrpo, runTasks } from '@fathom/training';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMiniReplEnv, type MiniReplEnv } from './mini-repl.env';

/**
 * GRPO with a second OpenEnv environment in the loop — not FATHOM's env-service but a small REPLEnv-compatible server
 * (`mini-repl.env.ts`, a TEST FIXTURE) reached by URL: every episode runs there, the shipped default policy writes
 * the turns, FATHOM's tasks and rewards (or, with `reward.source` `env`, the environment's own) score them, and the
 * learner updates on them.
 */

let env: MiniReplEnv;
let out: string;
beforeAll(async () => {
  env = await startMiniReplEnv();
  out = await mkdtemp(join(tmpdir(), 'fathom-openenv-train-'));
});
afterAll(async () => {
  await env.close();
  await rm(out, { recursive: true, force: true });
});

/** 2 GRPO steps of the default policy (B = 2, G = 4) with every episode in the environment, written to `runOut`. */
async function trainTwoSteps(config: { name: string; seed: number; reward?: { source: 'env' } }, runOut: string) {
  const run = RunConfigSchema.parse({
    ...config,
    model: { checkpoint: 'default' },
    data: { trainSize: 8, minContextTokens: 4096, maxContextTokens: 8192 },
    steps: 2,
    batchSize: 2,
    checkpointEvery: 2,
    grpo: { groupSize: 4 },
    optimizer: { lr: 1e-4 },
    // The root's own turn budget (512 tokens): with 192 the default root's first turns were all cut off before a cell
    // was sent (its programs run 250–450 bytes), and the environment rewarded nothing.
    rollout: { maxTurns: 3, maxTokensPerTurn: 512, maxEpisodeTokens: 1536 },
  });
  const sandbox = new OpenEnvSandbox(env.url);
  await runGrpo(await grpoTrainConfigOfRun(run, runOut), { sandbox, tasks: await runTasks(run) });
}

describe("OpenEnvSandbox and an environment's rewards", () => {
  it('reads the reward of each step, and sends a final answer as REPLEnv does', async () => {
    const sandbox = new OpenEnvSandbox(env.url);
    const episode = await sandbox.openEpisode({ ctx: 'The van is teal.', question: 'What colour is the van?' });
    expect(await episode.run('print(context.length)')).toMatchObject({ stdout: '16', error: null, reward: 0.25 });
    expect((await episode.run('nope()')).reward).toBe(-0.25);
    const final = await episode.submit!('teal');
    expect(final).toMatchObject({ error: null, alive: false, reward: 1 });
    expect(episode.alive).toBe(false);
    await sandbox.close();
  });
});

describe('training against another OpenEnv environment', () => {
  it('runs 2 GRPO steps with every episode in the environment at the URL', async () => {
    const before = { ...env.served };
    await trainTwoSteps({ name: 'openenv', seed: 0 }, out);

    const records = await MetricsLog.read(join(out, 'metrics.jsonl'));
    expect(records.map((r) => r.step)).toEqual([1, 2]);
    // A step whose groups all had equal rewards makes no update (and has no loss): the default root writes nearly the
    // same program in every sample.
    for (const r of records) {
      expect(Number.isFinite(r.reward)).toBe(true);
      if (r.updated) expect(Number.isFinite(r.loss)).toBe(true);
    }

    // Every episode was reset in the environment, and every code turn was a step it served.
    const groups = (
      await Promise.all(
        (await readdir(join(out, 'rollouts'))).map(async (file) =>
          (await readFile(join(out, 'rollouts', file), 'utf8')).trim().split('\n').slice(1),
        ),
      )
    )
      .flat()
      .map((line) => JSON.parse(line) as { trajectories: { turns: { action: string }[] }[]; excluded: unknown[] });
    const trajectories = groups.flatMap((g) => g.trajectories);
    expect(trajectories.length + groups.reduce((n, g) => n + g.excluded.length, 0)).toBe(2 * 2 * 4);
    expect(env.served.resets - before.resets).toBe(2 * 2 * 4);
    const codeTurns = trajectories.reduce((n, t) => n + t.turns.filter((turn) => turn.action === 'code').length, 0);
    expect(codeTurns).toBeGreaterThan(0);
    expect(env.served.steps - before.steps).toBe(codeTurns);
    await expect.poll(() => env.open()).toBe(0);
  }, 300_000);

  it("trains on the environment's own reward with reward.source env: each episode's total is what it gave", async () => {
    const envOut = join(out, 'env-reward');
    const before = env.episodeRewards.length;
    await trainTwoSteps({ name: 'openenv-reward', seed: 1, reward: { source: 'env' } }, envOut);

    const records = await MetricsLog.read(join(envOut, 'metrics.jsonl'));
    expect(records.map((r) => r.step)).toEqual([1, 2]);
    const groups = (
      await Promise.all(
        (await readdir(join(envOut, 'rollouts'))).map(async (file) =>
          (await readFile(join(envOut, 'rollouts', file), 'utf8')).trim().split('\n').slice(1),
        ),
      )
    )
      .flat()
      .map(
        (line) =>
          JSON.parse(line) as {
            trajectories: { envReward?: number }[];
            results: { total: number }[];
            excluded: unknown[];
          },
      );
    // Every episode's total is the sum of the rewards the environment gave it (FATHOM's own reward is not used):
    // the same multiset of numbers on both sides, and some of them not 0.
    const totals = groups.flatMap((g) => g.results.map((r) => r.total));
    for (const g of groups) {
      expect(g.excluded).toEqual([]);
      g.trajectories.forEach((t, i) => expect(g.results[i].total).toBe(t.envReward ?? 0));
    }
    await expect.poll(() => env.open()).toBe(0);
    const given = env.episodeRewards.slice(before);
    expect(totals.length).toBe(2 * 2 * 4);
    expect([...totals].sort((a, b) => a - b)).toEqual([...given].sort((a, b) => a - b));
    expect(totals.some((t) => t !== 0)).toBe(true);
    expect(records.every((r) => !r.updated || Number.isFinite(r.loss))).toBe(true);
  }, 300_000);

  it('refuses reward.source env in a local sandbox pool before writing anything', async () => {
    const run = RunConfigSchema.parse({
      name: 'openenv-no-env',
      model: { checkpoint: 'default' },
      data: { trainSize: 2 },
      reward: { source: 'env' },
    });
    const noEnvOut = join(out, 'no-env');
    await expect(runGrpo(await grpoTrainConfigOfRun(run, noEnvOut), { tasks: [] })).rejects.toThrow(
      /reward\.source "env".*--env-url/,
    );
    expect(existsSync(noEnvOut)).toBe(false);
  });

  it('fathom train --env-url runs the episodes there, and refuses a URL that is not ws:// or not reachable', async () => {
    const file = join(out, 'cli-run.json');
    await writeFile(
      file,
      JSON.stringify({
        name: 'openenv-cli',
        model: { checkpoint: 'default' },
        data: { trainSize: 2, minContextTokens: 4096, maxContextTokens: 8192 },
        steps: 1,
        batchSize: 1,
        grpo: { groupSize: 2 },
        rollout: { maxTurns: 2, maxTokensPerTurn: 96, maxEpisodeTokens: 1024 },
        reward: { source: 'env' },
      }),
    );
    const train = (...args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(
          process.execPath,
          ['--no-node-snapshot', '--import', 'tsx', 'apps/cli/src/main.ts', 'train', ...args],
          (error, stdout, stderr) => resolve({ code: error ? (child.exitCode ?? 1) : 0, stdout, stderr }),
        );
      });
    const refused = await train('--config', file, '--env-url', 'http://127.0.0.1:1/ws');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--env-url must be a ws:// or wss:// URL, got "http://127.0.0.1:1/ws"');
    const unreachable = await train('--config', file, '--env-url', 'ws://127.0.0.1:1/ws', '--out', join(out, 'nope'));
    expect(unreachable.code).not.toBe(0);
    expect(unreachable.stderr).toContain('cannot connect to ws://127.0.0.1:1/ws');
    expect(existsSync(join(out, 'nope'))).toBe(false);
    const resets = env.served.resets;
    const ran = await train('--config', file, '--env-url', env.url, '--out', join(out, 'cli'), '--no-progress');
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout.trim().split('\n').at(-1)!)).toMatchObject({ step: 1 });
    expect(env.served.resets - resets).toBe(2);
  }, 120_000);
});
