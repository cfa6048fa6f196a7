import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecursionTreeNode } from '@fathom/contracts';
import { createDefaultModel, saveCheckpoint } from '@fathom/model';
import { flattenCalls } from '@fathom/rlm';
import { SandboxPool } from '@fathom/sandbox';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPromptStyle, writePromptStyle } from '../prompt-style.file';
import { parseGrpoTrainConfig, type GrpoTrainConfig } from './config';
import { runGrpo } from './grpo.trainer';
import { RolloutStore } from './rollout.store';

const defaultModel = fileURLToPath(new URL('../../../../data/checkpoints/default', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fathom-grpo-reader-'));
const tasks = join(dir, 'tasks.jsonl');
// The shipped root without its paired span reader, so that its own leaf reads are generated; and a language-model
// reader of fresh weights, whose reads differ from the root's.
const searchRoot = join(dir, 'root');
const reader = join(dir, 'reader');
let pool: SandboxPool;

beforeAll(async () => {
  cpSync(defaultModel, searchRoot, { recursive: true, filter: (path) => path !== join(defaultModel, 'reader') });
  await saveCheckpoint(reader, await createDefaultModel(undefined, 7), 'F32');
  await writePromptStyle(reader, (await readPromptStyle(searchRoot))!);
  pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 2 });
  await writeTasksJsonl(
    tasks,
    generateTasks({ split: 'train', n: 4, seed: 8, minTokens: 1024, maxTokens: 2048, mix: { niah: 1, extractive: 1 } }),
  );
});
afterAll(async () => {
  await pool?.close();
  if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

async function config(out: string, readerCheckpoint?: string): Promise<GrpoTrainConfig> {
  return parseGrpoTrainConfig({
    model: { checkpoint: searchRoot, readerCheckpoint },
    data: { tasks },
    steps: 1,
    batchSize: 2,
    episode: {
      maxTurns: 2,
      maxTokensPerTurn: 512,
      maxEpisodeTokens: 4096,
      promptStyle: await readPromptStyle(searchRoot),
      subcalls: { extractive: true },
      maxInfraRetries: 0,
    },
    grpo: { groupSize: 2, beta: 0 },
    microBatchSize: 2,
    padMultiple: 512,
    entropy: false,
    seed: 1,
    out: join(dir, out),
  });
}

/** The answers of every leaf read of a step's episodes, in group and episode order. */
async function leafAnswers(run: GrpoTrainConfig): Promise<string[]> {
  const stored = await new RolloutStore(run.out).read(1);
  const leaves = (node: RecursionTreeNode): string[] =>
    node.kind === 'leaf' ? [String(node.answer)] : node.children.flatMap(leaves);
  return stored!.groups.flatMap((g) => g.trajectories.flatMap((t) => leaves(t.recursionTree)));
}

describe('runGrpo with a frozen reader (model.readerCheckpoint)', () => {
  it('has the reader checkpoint answer the leaf reads while the trained policy writes the turns', async () => {
    const alone = await config('alone');
    const withReader = await config('with-reader', reader);
    await runGrpo(alone, { sandbox: pool });
    await runGrpo(withReader, { sandbox: pool });
    const [own, read] = [await leafAnswers(alone), await leafAnswers(withReader)];
    // The same programs run on the same seeds either way; only who samples the leaf reads differs.
    expect(read.length).toBeGreaterThan(0);
    expect(read).toHaveLength(own.length);
    expect(read).not.toEqual(own);
  }, 240_000);
});

describe('runGrpo with a frozen root (model.rootCheckpoint): GRPO of the reader', () => {
  it('trains only the extractive leaf reads, scored under the span constraint they were sampled with', async () => {
    const base = await config('reader-grpo');
    const run = parseGrpoTrainConfig({
      ...base,
      model: { checkpoint: reader, rootCheckpoint: searchRoot },
      episode: { ...base.episode, trainRoot: false, trainSubcalls: true },
      steps: 2,
    });
    await runGrpo(run, { sandbox: pool });
    const stored = await new RolloutStore(run.out).read(1);
    const trajectories = stored!.groups.flatMap((g) => g.trajectories);
    const reads = trajectories.flatMap((t) => flattenCalls(t.recursionTree)).filter((n) => n.kind === 'leaf');
    expect(trajectories.every((t) => t.trainRoot === false)).toBe(true);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((n) => n.sequence?.span !== undefined)).toBe(true);
    const records = readFileSync(join(run.out, 'metrics.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const updated = records.filter((r) => r.updated === true);
    expect(updated.length).toBeGreaterThan(0);
    for (const record of updated) {
      // Only reads are trained; the sampler's constrained log-probs and the learner's agree to float rounding (an
      // unconstrained learner would disagree by the log of the mass outside the span, several nats).
      const perTurn = record.logprob_diff_per_turn as Record<string, { max: number }>;
      expect(Object.keys(perTurn)).toEqual(['subcall']);
      expect(perTurn.subcall.max).toBeLessThan(1e-3);
      expect(record.policy_version).toBeGreaterThan(record.sampled_version as number);
    }
  }, 240_000);

  it('keeps the episode rule that an untrained root needs trained sub-calls; a greedy frozen root resolves', () => {
    // The run-config refusals (roles, temperatures) are RunConfigSchema's, tested in @fathom/contracts.
    const parse = (model: object, episode: object) =>
      parseGrpoTrainConfig({ model: { checkpoint: reader, ...model }, data: { tasks }, episode });
    expect(() => parse({ rootCheckpoint: searchRoot }, { trainRoot: false })).toThrow(
      /trainRoot false needs trainSubcalls/,
    );
    const frozenRoot = { trainRoot: false, trainSubcalls: true, sampling: { temperature: 0 } };
    const run = parse({ rootCheckpoint: searchRoot }, { ...frozenRoot, subcalls: { leafTemperature: 1 } });
    expect(run.episode.sampling.temperature).toBe(0);
  });
});
