import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { groupId } from '@fathom/contracts';
import { SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetricsLog, type MetricsRecord } from '../metrics.log';
import { TEST_STYLE } from '../testing/fixtures';
import { runGrpo, StepStoppedError, type StepCollector } from './grpo.trainer';
import { replayStep } from './replay';
import { RolloutStore } from './rollout.store';
import {
  crashingSandboxTestDouble,
  sftWarmStart,
  staleWeightsTestPolicy,
  tinyGrpoConfig,
  writeUnanswerableTasks,
  type GrpoFixture,
} from './testing/grpo-fixture';

let pool: SandboxPool;
let f: GrpoFixture;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 2 });
  f = await sftWarmStart();
});
afterAll(() => pool?.close());

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );
const weights = (dir: string) => readFile(join(dir, 'model.safetensors'));
const withoutTime = (records: MetricsRecord[]) => records.map(({ time: _, ...r }) => r);

async function failure(run: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await run;
  } catch (error) {
    return error as Error & { code?: string };
  }
  throw new Error('the run succeeded');
}

describe('runGrpo (real sandbox, tiny SFT policy)', () => {
  it('runs a step end to end: rollouts stored, groups scored, one update that changes the weights', async () => {
    const config = tinyGrpoConfig(f, 'one', { steps: 1, exportDtype: 'F16' });
    const result = await runGrpo(config, { sandbox: pool });
    const [record] = await MetricsLog.read(join(config.out, 'metrics.jsonl'));
    expect(record).toMatchObject({
      kind: 'train',
      step: 1,
      sampled_version: 0,
      policy_version: 1,
      updated: true,
      groups: { submitted: 2 },
      status: { infra_error: 0 },
      loss: expect.any(Number),
      entropy: expect.any(Number),
      'clip_ratio/low_mean': 0,
      'rewards/token_budget/mean': expect.any(Number),
      frac_reward_zero_std: expect.any(Number),
      time: {
        generation_s: expect.any(Number),
        update_s: expect.any(Number),
        update_train_s: expect.any(Number),
        weight_sync_s: expect.any(Number),
        learner_rss_mb: expect.any(Number),
      },
    });
    expect(record.groups).toMatchObject({ trainable: expect.any(Number) });
    expect((record.groups as { trainable: number }).trainable).toBeGreaterThan(0);
    // On-policy: the learner's log-probs are the sampler's up to float noise, and the reference is the policy, so
    // the KL to it is 0 up to the same noise.
    expect(record.logprob_diff_max as number).toBeLessThan(1e-4);
    expect(record.kl as number).toBeLessThan(1e-9);
    expect((record.time as { learner_rss_mb: number }).learner_rss_mb).toBeGreaterThan(100);
    expect(Object.keys(record.logprob_diff_per_turn as object)).toContain('1');
    const stored = await new RolloutStore(config.out).read(1);
    expect(stored?.groups).toHaveLength(2);
    const traj = stored!.groups[0].trajectories[0];
    expect(traj.mask).toHaveLength(traj.ids.length);
    expect(traj.logprobs).toHaveLength(traj.ids.length);
    expect(Buffer.compare(await weights(result.finalDir), await weights(f.sftFinal))).not.toBe(0);
    expect(result.policyVersion).toBe(1);
    // final/ is exported as exportDtype; the step checkpoints stay F32 so a resume is exact.
    const dtypes = async (dir: string) => {
      const file = await weights(dir);
      const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString('utf8'));
      return new Set(
        Object.entries(header).flatMap(([k, v]) => (k === '__metadata__' ? [] : [(v as { dtype: string }).dtype])),
      );
    };
    expect(await dtypes(result.finalDir)).toEqual(new Set(['F16']));
    expect(await dtypes(result.checkpointDir)).toEqual(new Set(['F32']));
  });

  it("with maxStaleness 1, samples step s + 1 with the weights before step s's update, the same again for the same seed", async () => {
    const grpo = { groupSize: 4, beta: 0.04, maxStaleness: 1 };
    const run = async (out: string) => {
      const config = tinyGrpoConfig(f, out, { steps: 3, grpo });
      await runGrpo(config, { sandbox: pool });
      return MetricsLog.read(join(config.out, 'metrics.jsonl'));
    };
    const records = await run('overlap-a');
    expect(records.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(records[0].updated).toBe(true);
    // Step 2's rollouts ran during step 1's update: they were sampled by version 0, not by the version it made.
    expect(records.map((r) => r.sampled_version)).toEqual([
      0,
      0,
      Number(records[1].policy_version) - Number(records[1].updated),
    ]);
    expect(records[1].staleness_histogram).toEqual({ 1: (records[1].groups as { trainable: number }).trainable });
    for (const r of records) expect(r.time).toMatchObject({ rollout_wait_s: expect.any(Number) });
    expect(withoutTime(await run('overlap-b'))).toEqual(withoutTime(records));
  });

  it('resumed from a checkpoint, writes exactly the metrics and weights of an uninterrupted run', async () => {
    const full = await runGrpo(tinyGrpoConfig(f, 'full', { steps: 3 }), { sandbox: pool });
    const config = tinyGrpoConfig(f, 'cut', { steps: 3 });
    const interrupt = new Error('interrupted after step 2');
    await expect(
      runGrpo(config, {
        sandbox: pool,
        observer: {
          onStep: (r) => {
            if (r.step === 2) throw interrupt;
          },
        },
      }),
    ).rejects.toBe(interrupt);
    let resumedFrom: string | null = null;
    await runGrpo(config, {
      sandbox: pool,
      resume: true,
      observer: {
        onStart: (info) => {
          resumedFrom = info.resumedFrom;
        },
      },
    });
    // Step 2 was checkpointed before it was announced, so the resume continues after it.
    expect(resumedFrom).toMatch(/step-000002$/);
    const expected = withoutTime(await MetricsLog.read(join(full.finalDir, '..', 'metrics.jsonl')));
    expect(expected.map((r) => r.step)).toEqual([1, 2, 3]);
    expect(withoutTime(await MetricsLog.read(join(config.out, 'metrics.jsonl')))).toEqual(expected);
    expect(Buffer.compare(await weights(join(config.out, 'final')), await weights(full.finalDir))).toBe(0);
    const state = JSON.parse(
      await readFile(join(config.out, 'checkpoints', 'step-000003', 'training_state.json'), 'utf8'),
    );
    expect(state).toMatchObject({
      step: 3,
      data: { epoch: 0, offset: 6 },
      extra: { policyVersion: full.policyVersion },
    });
    // The same tasks in the same order, and the same sampled ids: neither repeated nor skipped.
    const a = new RolloutStore(join(full.finalDir, '..'));
    const b = new RolloutStore(config.out);
    for (const step of [1, 2, 3]) {
      const [x, y] = [await a.read(step), await b.read(step)];
      expect(y!.taskIndexes).toEqual(x!.taskIndexes);
      expect(y!.groups.map((g) => g.trajectories.map((t) => t.ids))).toEqual(
        x!.groups.map((g) => g.trajectories.map((t) => t.ids)),
      );
    }
    await expect(
      runGrpo(tinyGrpoConfig(f, 'cut', { steps: 4 }), { sandbox: pool, resume: true }),
    ).rejects.toMatchObject({
      code: 'RESUME_MISMATCH',
      message: expect.stringMatching(/steps differ/),
    });
  });

  it('stops before a step when asked, checkpointed there, and a resume completes it exactly', async () => {
    const full = await runGrpo(tinyGrpoConfig(f, 'unstopped', { steps: 3, checkpointEvery: 10 }), { sandbox: pool });
    const config = tinyGrpoConfig(f, 'stopped', { steps: 3, checkpointEvery: 10 });
    const asked: number[] = [];
    const stopped = await runGrpo(config, {
      sandbox: pool,
      shouldStop: (next) => {
        asked.push(next);
        return next === 3;
      },
    });
    expect(asked).toEqual([1, 2, 3]);
    expect(stopped).toMatchObject({ stopped: true, policyVersion: expect.any(Number) });
    expect(stopped.checkpointDir).toMatch(/step-000002$/);
    expect(await exists(join(config.out, 'final'))).toBe(false);
    const versions: number[] = [];
    const resumed = await runGrpo(config, {
      sandbox: pool,
      resume: true,
      observer: { onPolicy: ({ version }) => void versions.push(version) },
    });
    expect(resumed.stopped).toBe(false);
    expect(versions[0]).toBe(stopped.policyVersion);
    expect(versions.at(-1)).toBe(full.policyVersion);
    expect(withoutTime(await MetricsLog.read(join(config.out, 'metrics.jsonl')))).toEqual(
      withoutTime(await MetricsLog.read(join(full.finalDir, '..', 'metrics.jsonl'))),
    );
    expect(Buffer.compare(await weights(resumed.finalDir), await weights(full.finalDir))).toBe(0);
  });

  it("ends the run stopped when the collector abandons a step, and a resume draws that step's tasks again", async () => {
    /** A collector of empty groups (no update) that records each step's tasks and abandons `abandonAt`. */
    const recording = (drawn: Map<number, number[]>, abandonAt = 0): StepCollector => ({
      collect: async (request) => {
        drawn.set(request.step, [...request.taskIndexes]);
        if (request.step === abandonAt) throw new StepStoppedError(`run r is stopping: step ${request.step} abandoned`);
        const groups = request.tasks.map((task, i) => ({
          groupId: groupId(request.step, i),
          taskId: task.id,
          claimedVersion: request.policyVersion,
          trajectories: [],
          rewards: [],
          results: [],
          excluded: [],
          infraFailures: [],
        }));
        return { groups, generationMs: 0, scoringMs: 0, weightSyncMs: 0 };
      },
      close: async () => {},
    });
    const uninterrupted = new Map<number, number[]>();
    await runGrpo(tinyGrpoConfig(f, 'unabandoned', { steps: 3, checkpointEvery: 10 }), {
      collector: recording(uninterrupted),
    });
    const config = tinyGrpoConfig(f, 'abandoned', { steps: 3, checkpointEvery: 10 });
    const first = new Map<number, number[]>();
    const stopped = await runGrpo(config, { collector: recording(first, 3) });
    expect(stopped).toMatchObject({ stopped: true });
    expect(stopped.checkpointDir).toMatch(/step-000002$/);
    expect(await exists(join(config.out, 'final'))).toBe(false);
    const resumed = new Map<number, number[]>();
    expect((await runGrpo(config, { resume: true, collector: recording(resumed) })).stopped).toBe(false);
    expect([...resumed.keys()]).toEqual([3]);
    expect(resumed.get(3)).toEqual(uninterrupted.get(3));
  });

  it('replays a step from its stored trajectories with the recorded loss and metrics', async () => {
    const config = tinyGrpoConfig(f, 'replay', { steps: 3, checkpointEvery: 2 });
    await runGrpo(config, { sandbox: pool });
    const fromStart = await replayStep(config.out, 2);
    expect(fromStart.fromCheckpoint).toBeNull();
    expect(fromStart.replayedSteps).toEqual([1]);
    const fromCheckpoint = await replayStep(config.out, 3);
    expect(fromCheckpoint.fromCheckpoint).toMatch(/step-000002$/);
    for (const r of [fromStart, fromCheckpoint]) {
      expect(r.recorded).not.toBeNull();
      expect(Object.keys(r.replayed).sort()).toEqual(Object.keys(r.recorded!).sort());
      expect(r.replayed.loss).toBeTypeOf('number');
      expect(r.maxAbsDiff).toBeLessThan(1e-9);
    }
    // A stored trajectory whose mask lost an entry is refused with the sample named, never trained on.
    const store = new RolloutStore(config.out);
    const stored = (await store.read(3))!;
    stored.groups[0].trajectories[0].mask.pop();
    await store.write(stored);
    await expect(replayStep(config.out, 3)).rejects.toThrow(/sample 0.*mask/);
  });

  it('skips all-equal groups with reason zero_std, counts them, and leaves the weights alone', async () => {
    const tasks = await writeUnanswerableTasks(f.dir, 4);
    const config = tinyGrpoConfig(f, 'flat', { steps: 1, data: { tasks }, reward: { wrongAnswerCap: 0 } });
    const result = await runGrpo(config, { sandbox: pool });
    const [record] = await MetricsLog.read(join(config.out, 'metrics.jsonl'));
    expect(record).toMatchObject({
      updated: false,
      policy_version: 0,
      reward: 0,
      frac_reward_zero_std: 1,
      groups: { submitted: 2, trainable: 0, skipped: { zero_std: 2 } },
    });
    expect(record).not.toHaveProperty('loss');
    expect(record.skipped).toEqual([
      expect.objectContaining({ reason: 'zero_std' }),
      expect.objectContaining({ reason: 'zero_std' }),
    ]);
    expect(Buffer.compare(await weights(result.finalDir), await weights(f.sftFinal))).toBe(0);
  });

  it('rejects trajectories from a worker reporting other weights than it was asked for', async () => {
    const config = tinyGrpoConfig(f, 'stale', { steps: 2 });
    await runGrpo(config, { sandbox: pool, policyFactory: staleWeightsTestPolicy });
    const [first, second] = await MetricsLog.read(join(config.out, 'metrics.jsonl'));
    expect(first).toMatchObject({ updated: true, policy_version: 1, groups: { skipped: { version_mismatch: 0 } } });
    expect(second).toMatchObject({
      sampled_version: 1,
      updated: false,
      policy_version: 1,
      groups: { trainable: 0, skipped: { version_mismatch: 2 } },
    });
    expect((second.skipped as { detail: string }[])[0].detail).toMatch(/reports policy version 0, the group claims 1/);
  });

  it('excludes a sample whose sandbox crashed: never scored, never trained on, counted', async () => {
    const config = tinyGrpoConfig(f, 'crash', { steps: 1 });
    await runGrpo(config, { sandbox: crashingSandboxTestDouble(pool, 1) });
    const [record] = await MetricsLog.read(join(config.out, 'metrics.jsonl'));
    expect(record).toMatchObject({
      status: { infra_error: 1 },
      excluded_samples: 1,
      infra_failures: { worker_crashed: 1 },
    });
    const stored = await new RolloutStore(config.out).read(1);
    const [first] = stored!.groups;
    expect(first.excluded.map((t) => t.sampleIndex)).toEqual([1]);
    expect(first.trajectories.map((t) => t.sampleIndex)).toEqual([0, 2, 3]);
    expect(first.rewards).toHaveLength(3);
    const trainedGroups = stored!.groups.filter(
      (g) => !(record.skipped as { groupId: string }[]).some((s) => s.groupId === g.groupId),
    );
    expect(record.trained_sequences).toBe(trainedGroups.reduce((n, g) => n + g.trajectories.length, 0));
  });

  it('stops a run whose SFT and rollout prompts differ, showing the difference, before any step', async () => {
    const config = tinyGrpoConfig(f, 'drift', {
      episode: { maxTurns: 3, maxTokensPerTurn: 48, promptStyle: { ...TEST_STYLE, system: 'full' } },
    });
    const error = await failure(runGrpo(config, { sandbox: pool }));
    expect(error.code).toBe('PROMPT_DRIFT');
    expect(error.message).toMatch(/^- ctx is the document \(JS REPL\)/m);
    expect(error.message).toMatch(/^\+ You answer a question about a long document/m);
    expect(await exists(join(config.out, 'metrics.jsonl'))).toBe(false);
  });
});
