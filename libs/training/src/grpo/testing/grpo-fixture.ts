import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Task } from '@fathom/contracts';
import type { SandboxPool } from '@fathom/sandbox';
import { SamplerPolicy } from '@fathom/rlm';
import { parseSftConfig } from '../../config';
import { runSft } from '../../sft.trainer';
import { TEST_STYLE, tinyTasks, writeTinyFixture } from '../../testing/fixtures';
import { parseGrpoTrainConfig, type GrpoTrainConfig, type GrpoTrainConfigInput } from '../config';
import type { PolicyFactory } from '../grpo.trainer';

export interface GrpoFixture {
  dir: string;
  tasks: string;
  /** The SFT run's exported model (`<sft run>/final`), whose training state records TEST_STYLE. */
  sftFinal: string;
}

/**
 * A tiny SFT warm start on tiny tasks (a second of CPU): a policy that writes code and answers often enough for
 * rewards to differ within a group, as GRPO needs.
 */
export async function sftWarmStart(): Promise<GrpoFixture> {
  const f = await writeTinyFixture(8);
  const out = join(f.dir, 'sft');
  await runSft(
    parseSftConfig({
      model: { config: f.modelConfig, initSeed: 1 },
      data: { format: 'conversations', conversations: f.conversations },
      promptStyle: TEST_STYLE,
      rolloutPromptStyle: TEST_STYLE,
      seqLen: 768,
      padMultiple: 64,
      batchSize: 4,
      steps: 40,
      optimizer: { lr: 1e-2, warmupSteps: 2, minLr: 1e-3 },
      evalFraction: 0,
      checkpointEvery: 40,
      seed: 5,
      out,
    }),
  );
  return { dir: f.dir, tasks: f.tasks, sftFinal: join(out, 'final') };
}

/** Tasks whose gold answer no completion can match: every reward of a group equals with `wrongAnswerCap: 0`. */
export async function writeUnanswerableTasks(dir: string, n: number): Promise<string> {
  const path = join(dir, 'unanswerable.jsonl');
  const tasks: Task[] = tinyTasks(n).map((t) => ({ ...t, answer: 'no-completion-writes-this' }));
  await writeFile(path, tasks.map((t) => JSON.stringify(t) + '\n').join(''));
  return path;
}

/** A short GRPO run over the fixture: B = 2 prompts of G = 4 episodes, short turns. */
export function tinyGrpoConfig(
  f: GrpoFixture,
  out: string,
  extra: Partial<GrpoTrainConfigInput> = {},
): GrpoTrainConfig {
  return parseGrpoTrainConfig({
    model: { checkpoint: f.sftFinal },
    data: { tasks: f.tasks },
    steps: 2,
    batchSize: 2,
    episode: { maxTurns: 3, maxTokensPerTurn: 48, maxEpisodeTokens: 700, promptStyle: TEST_STYLE, maxInfraRetries: 0 },
    grpo: { groupSize: 4, beta: 0.04 },
    reward: { tokenBudget: { alpha: 20 } },
    optimizer: { lr: 1e-3 },
    checkpointEvery: 1,
    microBatchSize: 8,
    padMultiple: 64,
    sandbox: { workers: 1 },
    seed: 3,
    out: join(f.dir, out),
    ...extra,
  });
}

/**
 * TEST DOUBLE — a rollout worker that did not load the weights it was asked for: from version 1 on it stamps every
 * trajectory with the previous version, as a worker still serving the old weights would report.
 */
export const staleWeightsTestPolicy: PolicyFactory = (backend, tokenizer, version) =>
  new SamplerPolicy(backend, tokenizer, Math.max(0, version - 1));

/**
 * TEST DOUBLE — a sandbox whose `openEpisode` call number `failAt` (0-based, counted over the whole run) fails as
 * a crashed worker would; every other call goes to the real pool.
 */
export function crashingSandboxTestDouble(pool: SandboxPool, failAt: number): Pick<SandboxPool, 'openEpisode'> {
  let calls = 0;
  return {
    openEpisode: (options) => {
      if (calls++ === failAt) return Promise.reject(new Error('sandbox worker crashed (injected)'));
      return pool.openEpisode(options);
    },
  };
}
