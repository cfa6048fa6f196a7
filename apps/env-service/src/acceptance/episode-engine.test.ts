import type { EpisodeTrajectory } from '@fathom/contracts';
import { ByteTokenizer } from '@fathom/model';
import { EpisodeRunner, MIRROR_TASK, recursionScript, ScriptedTestPolicy } from '@fathom/rlm';
import { OpenEnvSandbox, SandboxPool } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, metricSum, startHarness, type Harness } from '../test-support/harness';

/**
 * The episode engine of training and eval (`EpisodeRunner`) driving its episodes through the env-service: the
 * service is the sandbox (OpenEnvSandbox, an OpenEnv WebSocket session per episode), and every llm() call comes back
 * to the engine, whose policy (a scripted TEST DOUBLE here) writes the leaf reads and child episodes.
 */

const tokenizer = new ByteTokenizer();
const TASK = MIRROR_TASK;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const codeStepsServed = () => metricSum(h.baseUrl, 'fathom_env_step_seconds_count', { transport: 'ws', kind: 'code' });

async function documentsServed(): Promise<{ stored: number; hit: number }> {
  const [stored, hit] = await Promise.all(
    ['stored', 'hit'].map((outcome) => metricSum(h.baseUrl, 'fathom_env_documents_total', { outcome })),
  );
  return { stored, hit };
}

function codeTurns(trajectory: EpisodeTrajectory): number {
  const walk = (node: EpisodeTrajectory['recursionTree']): number =>
    node.children.reduce((n, child) => n + (child.kind === 'episode' ? child.turns - 1 + walk(child) : 0), 0);
  return trajectory.turns.filter((t) => t.action === 'code').length + walk(trajectory.recursionTree);
}

async function runGroup(sandbox: Pick<SandboxPool, 'openEpisode'>, submitAnswers = false) {
  const runner = new EpisodeRunner(
    { sandbox, policy: new ScriptedTestPolicy(tokenizer, recursionScript) },
    { trainSubcalls: true, subcalls: { readerWindowChars: 20 }, submitAnswers },
  );
  return runner.runGroup(TASK, { G: 2, seed: 0 });
}

describe('EpisodeRunner with the env-service as its sandbox', () => {
  it('runs every episode, child episodes included, in the env-service, with llm() written by its own policy', async () => {
    const sandbox = new OpenEnvSandbox(h.wsUrl);
    const served = h.inference.requests.length;
    const stepsBefore = await codeStepsServed();
    const documentsBefore = await documentsServed();
    const group = await runGroup(sandbox);
    expect(group.infraFailures).toEqual([]);
    for (const trajectory of group.trajectories) {
      expect(trajectory).toMatchObject({ status: 'ok', answer: 'teal' });
      const child = trajectory.recursionTree.children[0];
      expect(child).toMatchObject({ depth: 1, kind: 'episode', prompt: 'which colour?', answer: 'teal' });
      expect(child.children[0]).toMatchObject({ depth: 2, kind: 'leaf', prompt: 'name it', answer: 'teal' });
      // Sub-calls are the engine's own samples: the child episode's tokens are in the trajectory.
      expect(child.sequence?.ids.length).toBeGreaterThan(0);
    }
    // Every code step the engine recorded was a step served by the env-service; its endpoint served no llm().
    const turns = group.trajectories.reduce((n, t) => n + codeTurns(t), 0);
    expect(turns).toBe(4);
    expect((await codeStepsServed()) - stepsBefore).toBe(turns);
    expect(h.inference.requests.length).toBe(served);
    // Each document went once: the root document and the child's chunk stored, the second episode of each named
    // by its hash.
    const documents = await documentsServed();
    expect([documents.stored - documentsBefore.stored, documents.hit - documentsBefore.hit]).toEqual([2, 2]);
    await expect.poll(async () => (await get(h.baseUrl, '/capabilities')).body.active_sessions).toBe(0);
  });

  it('gives the same trajectories, token for token, as the in-process sandbox pool', async () => {
    const pool = await SandboxPool.start({ workers: 1 });
    try {
      const remote = await runGroup(new OpenEnvSandbox(h.wsUrl));
      const local = await runGroup(pool);
      const view = (t: EpisodeTrajectory) => ({
        ids: t.ids,
        mask: t.mask,
        logprobs: t.logprobs,
        answer: t.answer,
        observations: t.turns.map((turn) => turn.observation),
        child: t.recursionTree.children[0].sequence?.ids,
      });
      expect(remote.trajectories.map(view)).toEqual(local.trajectories.map(view));
    } finally {
      await pool.close();
    }
  });

  it('sends a text answer to the env-service as its final action when the environment scores the episode', async () => {
    const answers = () => metricSum(h.baseUrl, 'fathom_env_step_seconds_count', { transport: 'ws', kind: 'answer' });
    const before = await answers();
    const group = await runGroup(new OpenEnvSandbox(h.wsUrl), true);
    expect(group.trajectories.map((t) => [t.status, t.answer])).toEqual([
      ['ok', 'teal'],
      ['ok', 'teal'],
    ]);
    expect((await answers()) - before).toBe(2);
    // The service scores only the tasks of its own dataset; a document the engine sends is ad hoc, and unscored.
    expect(group.trajectories.map((t) => t.envReward)).toEqual([undefined, undefined]);
  });

  it('an unreachable env-service is an infra failure of the episode, not a crash', async () => {
    const group = await runGroup(new OpenEnvSandbox('ws://127.0.0.1:1/ws'));
    expect(group.trajectories).toEqual([]);
    expect(group.infraFailures.length).toBeGreaterThan(0);
    expect(group.infraFailures[0]).toMatchObject({ code: 'worker_crashed' });
    expect(group.infraFailures[0].message).toMatch(/cannot connect to ws:\/\/127\.0\.0\.1:1\/ws: .*ECONNREFUSED/);
  });
});
