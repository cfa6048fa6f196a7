import { readFile, mkdtemp, readdir, rm } from 'node:fs/promises';
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
 * the turns, FATHOM's tasks and rewards score them, and the learner updates on them.
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

describe('training against another OpenEnv environment', () => {
  it('runs 2 GRPO steps with every episode in the environment at the URL', async () => {
    const run = RunConfigSchema.parse({
      name: 'openenv',
      seed: 0,
      model: { checkpoint: 'default' },
      data: { trainSize: 8, minContextTokens: 4096, maxContextTokens: 8192 },
      steps: 2,
      batchSize: 2,
      checkpointEvery: 2,
      grpo: { groupSize: 4 },
      optimizer: { learningRate: 1e-4 },
      rollout: { maxTurns: 3, maxTokensPerTurn: 192, maxEpisodeTokens: 1280 },
    });
    const sandbox = new OpenEnvSandbox(env.url);
    await runGrpo(await grpoTrainConfigOfRun(run, out), { sandbox, tasks: await runTasks(run) });

    const records = await MetricsLog.read(join(out, 'metrics.jsonl'));
    expect(records.map((r) => r.step)).toEqual([1, 2]);
    for (const r of records) {
      expect(Number.isFinite(r.reward)).toBe(true);
      expect(Number.isFinite(r.loss)).toBe(true);
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
    expect(env.served.resets).toBe(2 * 2 * 4);
    const codeTurns = trajectories.reduce((n, t) => n + t.turns.filter((turn) => turn.action === 'code').length, 0);
    expect(codeTurns).toBeGreaterThan(0);
    expect(env.served.steps).toBe(codeTurns);
    await expect.poll(() => env.open()).toBe(0);
  }, 300_000);
});
