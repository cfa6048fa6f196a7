import { describe, expect, it } from 'vitest';
import {
  EVENT_NAMES,
  JOB_NAMES,
  JOB_OPTIONS,
  JOB_QUEUE,
  MESSAGE_SCHEMAS,
  QUEUE_NAMES,
  LearnGroupJobSchema,
  RewardGroupJobSchema,
  deadLetterQueueOf,
  groupId,
  groupJobId,
  jobIdOf,
  jobNamesOf,
  scoredGroupOf,
} from './jobs';
import type { RecursionTreeNode } from './rollout';
import { EntityIdSchema } from './run-config';

const key = { runId: 'run-1', step: 3, groupId: groupId(3, 0), taskId: 't1', policyVersion: 2 };
const node = (depth: number, kind: 'root' | 'episode' | 'leaf', children: RecursionTreeNode[] = []) => ({
  depth,
  kind,
  prompt: 'q',
  chunkChars: 10,
  answer: kind === 'leaf' ? null : 'a',
  promptTokens: 1,
  completionTokens: 1,
  latencyMs: 2,
  turns: 1,
  children,
});
const trajectory = (sampleIndex: number) => ({
  taskId: 't1',
  sampleIndex,
  attempt: 0,
  status: 'ok',
  stopReason: 'answer',
  turns: [
    {
      completion: '<answer>a</answer>',
      action: 'answer',
      observation: null,
      completionTokens: 1,
      sandboxError: null,
      finishReason: 'stop_token',
      generationMs: 1,
      envMs: 0,
    },
  ],
  answer: 'a',
  ids: [5, 6],
  logprobs: [0, -1],
  mask: [0, 1],
  promptTokens: 1,
  tokens: { completion: 1, observation: 0, subcall: 2 },
  recursionTree: node(0, 'root', [node(1, 'episode', [node(2, 'leaf')])]),
  policyVersion: 2,
  trainSubcalls: false,
  timings: { generationMs: 1, envMs: 0, totalMs: 1 },
});

describe('job contracts', () => {
  it('route every job name to one queue and give every name a schema', () => {
    expect(new Set(Object.values(JOB_QUEUE))).toEqual(new Set(QUEUE_NAMES));
    expect(Object.keys(MESSAGE_SCHEMAS).sort()).toEqual([...JOB_NAMES, ...EVENT_NAMES].sort());
    expect(QUEUE_NAMES.flatMap(jobNamesOf).sort()).toEqual([...JOB_NAMES].sort());
    for (const q of QUEUE_NAMES) {
      expect(deadLetterQueueOf(q)).not.toContain(':');
      expect(JOB_OPTIONS[q].attempts).toBeGreaterThanOrEqual(1);
    }
  });

  it('makes the group id from step and index: an entity id, different for every step and index', () => {
    expect(groupId(3, 0)).toBe('s3-g0');
    for (const id of [groupId(0, 0), groupId(3, 12), groupId(1_000_000, 1023)])
      expect(EntityIdSchema.parse(id)).toBe(id);
    const ids = Array.from({ length: 20 }, (_, step) => Array.from({ length: 20 }, (_, index) => groupId(step, index)));
    expect(new Set(ids.flat()).size).toBe(20 * 20);
  });

  it('makes the job id from run, step and group', () => {
    expect(groupJobId(key)).toBe('run-1:3:s3-g0');
    expect(jobIdOf('rollout.group', { ...key, G: 8, seed: 1 })).toBe('run-1:3:s3-g0');
    const evalJob = { evalId: 'e1', checkpoint: 'default', split: 'eval', runId: null, limit: null, seed: 0 } as const;
    expect(jobIdOf('eval.run', evalJob)).toBe('eval-e1');
  });

  const group = (trajectories: unknown[], excluded: unknown[] = []) => ({
    ...key,
    trajectories,
    excluded,
    infraFailures: [],
    generationMs: 1,
    weightSyncMs: 0,
  });
  const infra = (sampleIndex: number) => ({
    ...trajectory(sampleIndex),
    status: 'infra_error',
    stopReason: 'infra',
    infraError: { code: 'worker_crashed', message: 'sandbox worker exited' },
  });

  it('accepts a well-formed reward group with a nested recursion tree', () => {
    expect(RewardGroupJobSchema.safeParse(group([trajectory(0), trajectory(1)])).success).toBe(true);
  });

  it('rejects mismatched token arrays, repeated sample indexes and unknown keys', () => {
    const short = { ...trajectory(0), mask: [1] };
    expect(RewardGroupJobSchema.safeParse(group([short])).error?.issues[0].message).toMatch(
      /mask has 1 entries for 2 ids/,
    );
    const twice = RewardGroupJobSchema.safeParse(group([trajectory(0), trajectory(0)]));
    expect(twice.error?.issues[0].message).toMatch(/sampleIndex values must be 0\.\.1/);
    expect(RewardGroupJobSchema.safeParse({ ...group([trajectory(0)]), extra: 1 }).success).toBe(false);
    const positiveLogprob = { ...trajectory(0), logprobs: [0, 0.5] };
    expect(RewardGroupJobSchema.safeParse(group([positiveLogprob])).success).toBe(false);
  });

  it('keeps infra errors apart from scorable samples, with the indexes of both covering the group', () => {
    expect(RewardGroupJobSchema.safeParse(group([trajectory(0)], [infra(1)])).success).toBe(true);
    const scoredInfra = RewardGroupJobSchema.safeParse(group([trajectory(0), infra(1)]));
    expect(scoredInfra.error?.issues[0].message).toMatch(/infra_error samples go in excluded/);
    const excludedOk = RewardGroupJobSchema.safeParse(group([infra(0)], [trajectory(1)]));
    expect(excludedOk.success).toBe(false);
    const gap = RewardGroupJobSchema.safeParse(group([trajectory(0)], [infra(2)]));
    expect(gap.error?.issues[0].message).toMatch(/sampleIndex values must be 0\.\.1/);
    expect(RewardGroupJobSchema.safeParse(group([])).success).toBe(false);
  });

  it('joins a learn group (the score only) with its rollout, scoring exactly its scorable trajectories', () => {
    const ms = { mean: 0, std: 0 };
    const result = {
      total: 0,
      components: { format: 0, correctness: 0, token_budget: 0, recursion_efficiency: 0 },
      diagnostics: {
        answer: null,
        answerSource: 'none',
        tagCount: 0,
        rejection: 'no_answer',
        matched: null,
        matchKind: null,
        llmCalls: 0,
        callCountSource: 'executed',
        unparsedCodeBlocks: 0,
        tokensSpent: 1,
        tokenBudget: 10,
        recursionEfficiencyRaw: 1,
        uncappedTotal: 0,
        capped: false,
      },
    };
    const reward = {
      rewards: [0],
      results: [result],
      totals: { mean: 0, std: 0, min: 0, max: 0 },
      perComponent: { format: ms, correctness: ms, token_budget: ms, recursion_efficiency: ms },
      zeroStd: true,
    };
    const join = (g: ReturnType<typeof group>, r: unknown) => {
      const rollout = RewardGroupJobSchema.parse(g);
      const { runId, step, groupId, taskId, policyVersion } = rollout;
      const score = LearnGroupJobSchema.parse({ runId, step, groupId, taskId, policyVersion, reward: r, scoringMs: 0 });
      return () => scoredGroupOf(rollout, score);
    };
    expect(join(group([trajectory(0)], [infra(1)]), reward)()).toMatchObject({
      groupId: 's3-g0',
      claimedVersion: key.policyVersion,
      rewards: reward.rewards,
      results: reward.results,
      excluded: [expect.objectContaining({ sampleIndex: 1 })],
    });
    expect(join(group([], [infra(0)]), null)()).toMatchObject({ rewards: [], results: [] });
    expect(join(group([trajectory(0)]), null)).toThrow(/1 scorable trajectories but its score has no reward/);
    expect(join(group([trajectory(0), trajectory(1)]), reward)).toThrow(
      /2 scorable trajectories but its score has 1 rewards and 1 results/,
    );
    const rollout = RewardGroupJobSchema.parse(group([trajectory(0)]));
    const mismatched = LearnGroupJobSchema.parse({ ...key, groupId: 's9-g9', reward, scoringMs: 0 });
    expect(() => scoredGroupOf(rollout, mismatched)).toThrow(/is not its rollout's: groupId s9-g9 ≠ s3-g0/);
    expect(LearnGroupJobSchema.safeParse({ ...rollout, reward, scoringMs: 0 }).success).toBe(false);
  });
});
