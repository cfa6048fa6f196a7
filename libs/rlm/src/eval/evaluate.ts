import type {
  EpisodeStatus,
  EpisodeTrajectory,
  EpisodeTurn,
  GroupRollout,
  RewardConfigInput,
  StopReason,
  Task,
  TaskType,
} from '@fathom/contracts';
import { TASK_TYPES } from '@fathom/contracts';
import { isCorrect, normalizeAnswer, scoreTrajectory } from '@fathom/rewards';
import type { SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { resolveEpisodeConfig, type EpisodeConfigInput } from '../episode/episode.config';
import { EpisodeRunner, episodeTaskOf, type LeafCall } from '../episode/episode.runner';
import { RolloutError } from '../episode/errors';
import type { Policy } from '../episode/policy';
import { flattenCalls, rolloutMetrics, toRewardTrajectory, type RolloutMetrics } from '../episode/trajectory';
import { SUBCALL_UNKNOWN } from '../teacher/oracle';
import { scoreLeaf, type LeafScore } from './leaf';

/** Context-length buckets of the eval report, by `estimateTokens(context)`: [min, max) in tokens. */
export const CONTEXT_BUCKETS = [
  { name: '<4K', min: 0, max: 4_096 },
  { name: '4-16K', min: 4_096, max: 16_384 },
  { name: '16-64K', min: 16_384, max: 65_536 },
  { name: '64-200K', min: 65_536, max: 200_001 },
  { name: '>200K', min: 200_001, max: Infinity },
] as const;
export type ContextBucket = (typeof CONTEXT_BUCKETS)[number]['name'];

export function contextBucketOf(tokens: number): ContextBucket {
  const bucket = CONTEXT_BUCKETS.find((b) => tokens >= b.min && tokens < b.max);
  return (bucket ?? CONTEXT_BUCKETS[CONTEXT_BUCKETS.length - 1]).name;
}

/**
 * Whether a task's question phrasing was seen in training: `seen` for a train-family template, `unseen` for a
 * heldout-family one (`task.meta.phrasing.family`), `n/a` for a task without ground truth (a user's dataset).
 */
export const PHRASINGS = ['seen', 'unseen', 'n/a'] as const;
export type Phrasing = (typeof PHRASINGS)[number];

export function phrasingOf(task: Pick<Task, 'meta'>): Phrasing {
  if (task.meta === undefined) return 'n/a';
  return task.meta.phrasing.family === 'train' ? 'seen' : 'unseen';
}

/** Answers a leaf `llm()` call of `task` in place of the policy (the oracle-reader baseline). */
export type TaskLeafReader = (task: Task, question: string, chunk: string) => string;

export interface EvalOptions {
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  /** `greedy` (default) samples at temperature 0 whatever the episode config says; `sampled` uses its sampling. */
  mode?: 'greedy' | 'sampled';
  episode?: EpisodeConfigInput;
  reward?: RewardConfigInput;
  /** Base seed of the sampled mode; task i of seed s runs with group seed s·100003 + i. Default 0. */
  seed?: number;
  /** Tasks run at once, as one batch: their episodes decode together (`EpisodeRunner.runGroups`). Default 16. */
  concurrency?: number;
  /** Reads every leaf `llm()` call instead of the policy (child episodes stay the policy's). */
  leafReader?: TaskLeafReader;
  /** Samples every leaf `llm()` read instead of the policy (an endpoint behind `--subcalls`); `leafReader` wins. */
  readerPolicy?: Policy;
  /** Called after each task (progress bars). */
  onTask?: (result: EvalTaskResult, done: number, total: number) => void;
  /** Called with each task's whole episode (the `--episodes` JSONL). */
  onEpisode?: (episode: EvalEpisode) => void;
}

/** One task's outcome. `reward` and `correct` are null when the episode was excluded (infra error). */
export interface EvalTaskResult {
  taskId: string;
  type: TaskType;
  contextTokens: number;
  bucket: ContextBucket;
  phrasing: Phrasing;
  status: EpisodeStatus;
  stopReason: StopReason;
  answer: string | null;
  correct: boolean | null;
  reward: number | null;
  turns: number;
  completionTokens: number;
  subcallTokens: number;
  /** `llm()` calls that returned, at every depth. */
  llmCalls: number;
  /** Deepest `llm()` call that returned (0: none). */
  maxDepth: number;
  /** Every leaf call that returned, scored against the gold sub-answer. */
  leaves: LeafScore[];
  /** Why the task was excluded (after retries), when it was. */
  infraError?: string;
}

/** One `llm()` call as the episodes file shows it. */
export interface EvalCallRecord {
  depth: number;
  kind: 'leaf' | 'episode';
  question: string;
  chunkChars: number;
  answer: string | null;
  turns: number;
  error?: string;
}

/** A task's whole episode: what the policy wrote, what the REPL answered, every sub-call. */
export interface EvalEpisode {
  taskId: string;
  type: TaskType;
  question: string;
  gold: string;
  phrasing: Phrasing;
  contextTokens: number;
  status: EpisodeStatus;
  stopReason: StopReason;
  answer: string | null;
  correct: boolean | null;
  turns: Pick<EpisodeTurn, 'completion' | 'action' | 'observation' | 'sandboxError' | 'finishReason'>[];
  calls: EvalCallRecord[];
  leaves: LeafScore[];
}

export interface EvalStats {
  /** Tasks in the group, excluded ones included. */
  n: number;
  /** Tasks scored (n minus the excluded). Every mean below is over these. */
  scored: number;
  excluded: number;
  accuracy: number;
  meanReward: number;
  /** Root completion tokens plus sub-call tokens, per task. */
  meanTokens: number;
  meanCompletionTokens: number;
  meanLlmCalls: number;
  meanTurns: number;
  /** Share of scored episodes with at least one `llm()` call that returned. */
  callingShare: number;
  /** Deepest call per episode, mean and max over scored episodes. */
  meanMaxDepth: number;
  maxDepth: number;
  /** Leaf calls that returned. */
  leafCalls: number;
  /** Leaf calls whose chunk held a sub-question's evidence (scored), and how many of those were right. */
  leafScored: number;
  leafCorrect: number;
  /** leafCorrect / leafScored; null when no leaf was scored. */
  leafAccuracy: number | null;
  /** Leaf calls over a chunk that held no sub-question's evidence. */
  leafNoEvidence: number;
  /**
   * Of those, the calls answered with a value instead of the reader's "unknown" (`SUBCALL_UNKNOWN`): reads that
   * should have been refused, such as a distractor sentence read as the fact.
   */
  leafNoEvidenceAnswered: number;
}

export interface EvalReport {
  policyVersion: number;
  mode: 'greedy' | 'sampled';
  seed: number;
  overall: EvalStats;
  byType: Partial<Record<TaskType, EvalStats>>;
  /** Only buckets that hold at least one task. */
  byBucket: Partial<Record<ContextBucket, EvalStats>>;
  /** Seen (train-family) against unseen (heldout-family) question phrasings; only those present. */
  byPhrasing: Partial<Record<Phrasing, EvalStats>>;
  /** Every (type, bucket) pair present, keyed "type bucket" (e.g. "tracking 64-200K"). */
  byTypeAndBucket: Record<string, EvalStats>;
  /** Multi-turn metrics of the scored episodes. */
  rollout: RolloutMetrics;
  tasks: EvalTaskResult[];
  wallMs: number;
}

const REFUSAL = normalizeAnswer(SUBCALL_UNKNOWN);

export function evalStats(results: readonly EvalTaskResult[]): EvalStats {
  const scored = results.filter((r) => r.correct !== null);
  const mean = (f: (r: EvalTaskResult) => number) =>
    scored.length === 0 ? 0 : scored.reduce((s, r) => s + f(r), 0) / scored.length;
  const leaves = scored.flatMap((r) => r.leaves);
  const leafScored = leaves.filter((l) => l.verdict === 'correct' || l.verdict === 'wrong').length;
  const leafCorrect = leaves.filter((l) => l.verdict === 'correct').length;
  const noEvidence = leaves.filter((l) => l.verdict === 'no_evidence');
  return {
    n: results.length,
    scored: scored.length,
    excluded: results.length - scored.length,
    accuracy: mean((r) => (r.correct ? 1 : 0)),
    meanReward: mean((r) => r.reward ?? 0),
    meanTokens: mean((r) => r.completionTokens + r.subcallTokens),
    meanCompletionTokens: mean((r) => r.completionTokens),
    meanLlmCalls: mean((r) => r.llmCalls),
    meanTurns: mean((r) => r.turns),
    callingShare: mean((r) => (r.llmCalls > 0 ? 1 : 0)),
    meanMaxDepth: mean((r) => r.maxDepth),
    maxDepth: Math.max(0, ...scored.map((r) => r.maxDepth)),
    leafCalls: leaves.length,
    leafScored,
    leafCorrect,
    leafAccuracy: leafScored === 0 ? null : leafCorrect / leafScored,
    leafNoEvidence: noEvidence.length,
    leafNoEvidenceAnswered: noEvidence.filter((l) => normalizeAnswer(l.answer) !== REFUSAL).length,
  };
}

/** The report's groups of a run's task results: overall, per type, bucket, phrasing and (type, bucket). */
export function groupResults(
  results: readonly EvalTaskResult[],
): Pick<EvalReport, 'overall' | 'byType' | 'byBucket' | 'byPhrasing' | 'byTypeAndBucket'> {
  const byType: EvalReport['byType'] = {};
  const byBucket: EvalReport['byBucket'] = {};
  const byPhrasing: EvalReport['byPhrasing'] = {};
  const byTypeAndBucket: EvalReport['byTypeAndBucket'] = {};
  for (const type of TASK_TYPES) {
    const of = results.filter((r) => r.type === type);
    if (of.length > 0) byType[type] = evalStats(of);
  }
  for (const bucket of CONTEXT_BUCKETS) {
    const of = results.filter((r) => r.bucket === bucket.name);
    if (of.length > 0) byBucket[bucket.name] = evalStats(of);
  }
  for (const phrasing of PHRASINGS) {
    const of = results.filter((r) => r.phrasing === phrasing);
    if (of.length > 0) byPhrasing[phrasing] = evalStats(of);
  }
  for (const type of TASK_TYPES) {
    for (const bucket of CONTEXT_BUCKETS) {
      const of = results.filter((r) => r.type === type && r.bucket === bucket.name);
      if (of.length > 0) byTypeAndBucket[`${type} ${bucket.name}`] = evalStats(of);
    }
  }
  return { overall: evalStats(results), byType, byBucket, byPhrasing, byTypeAndBucket };
}

/** Runs `items` in consecutive batches of up to `size`, one batch at a time; results in input order. */
async function mapBatches<T, R>(
  items: readonly T[],
  size: number,
  fn: (batch: readonly T[], first: number) => Promise<R[]>,
): Promise<R[]> {
  if (!Number.isInteger(size) || size < 1)
    throw new RolloutError('INVALID_ARGUMENT', `concurrency must be a positive integer, got ${size}`);
  const out: R[] = [];
  for (let first = 0; first < items.length; first += size)
    out.push(...(await fn(items.slice(first, first + size), first)));
  return out;
}

function tasksById(tasks: readonly Task[]): Map<string, Task> {
  const byId = new Map<string, Task>();
  for (const task of tasks) {
    if (byId.has(task.id))
      throw new RolloutError('INVALID_ARGUMENT', `task id ${task.id} appears twice in the eval set`);
    byId.set(task.id, task);
  }
  return byId;
}

function episodeOf(task: Task, result: EvalTaskResult, traj: EpisodeTrajectory | null): EvalEpisode {
  const calls: EvalCallRecord[] = [];
  const visit = (node: EpisodeTrajectory['recursionTree']) => {
    for (const child of node.children) {
      calls.push({
        depth: child.depth,
        kind: child.kind === 'leaf' ? 'leaf' : 'episode',
        question: child.prompt,
        chunkChars: child.chunkChars,
        answer: child.answer,
        turns: child.turns,
        ...(child.error === undefined ? {} : { error: child.error }),
      });
      visit(child);
    }
  };
  if (traj !== null) visit(traj.recursionTree);
  return {
    taskId: task.id,
    type: task.type,
    question: task.question,
    gold: task.answer,
    phrasing: result.phrasing,
    contextTokens: result.contextTokens,
    status: result.status,
    stopReason: result.stopReason,
    answer: result.answer,
    correct: result.correct,
    turns: (traj?.turns ?? []).map(({ completion, action, observation, sandboxError, finishReason }) => ({
      completion,
      action,
      observation,
      sandboxError,
      finishReason,
    })),
    calls,
    leaves: result.leaves,
  };
}

/**
 * Evaluates a policy: one episode per task (greedy by default), scored with `@fathom/rewards`, aggregated
 * overall, per task type, context-length bucket and phrasing family. Every leaf `llm()` call that returned is scored
 * against the gold sub-answer of the task's ground truth (`scoreLeaf`). An episode that ends in `infra_error` after
 * its retries is excluded from every mean and counted in `excluded` — never scored as wrong.
 */
export async function evaluate(policy: Policy, tasks: readonly Task[], options: EvalOptions): Promise<EvalReport> {
  if (tasks.length === 0) throw new RolloutError('INVALID_ARGUMENT', 'no tasks to evaluate');
  const started = performance.now();
  const mode = options.mode ?? 'greedy';
  const seed = options.seed ?? 0;
  const byId = tasksById(tasks);
  // Leaf calls as they returned, per task: a retried attempt's come first, so a task keeps its last ones.
  const leafCalls = new Map<string, { call: LeafCall; answer: string }[]>();
  const episode = resolveEpisodeConfig(options.episode);
  const reader = options.leafReader;
  const runner = new EpisodeRunner(
    {
      sandbox: options.sandbox,
      policy,
      readerPolicy: options.readerPolicy,
      leafReader:
        reader === undefined ? undefined : (call) => reader(byId.get(call.taskId)!, call.question, call.chunk ?? ''),
      onLeaf: (call, answer) => leafCalls.get(call.taskId)?.push({ call, answer }),
    },
    mode === 'greedy' ? { ...episode, sampling: { ...episode.sampling, temperature: 0 } } : episode,
  );
  const trajectories: EpisodeTrajectory[] = [];
  let done = 0;
  const resultOf = (task: Task, group: GroupRollout): EvalTaskResult => {
    const contextTokens = estimateTokens(task.context);
    const traj = group.trajectories[0] ?? group.excluded[0];
    const calls = flattenCalls(traj.recursionTree);
    const returnedLeaves = calls.filter((c) => c.kind === 'leaf').length;
    const recorded = leafCalls.get(task.id) ?? [];
    const leaves = recorded
      .slice(recorded.length - returnedLeaves)
      .map(({ call, answer }) => scoreLeaf(task, call.question, call.chunk ?? '', answer));
    const base = {
      taskId: task.id,
      type: task.type,
      contextTokens,
      bucket: contextBucketOf(contextTokens),
      phrasing: phrasingOf(task),
      status: traj.status,
      stopReason: traj.stopReason,
      answer: traj.answer,
      turns: traj.turns.length,
      completionTokens: traj.tokens.completion,
      subcallTokens: traj.tokens.subcall,
      llmCalls: calls.length,
      maxDepth: Math.max(0, ...calls.map((c) => c.depth)),
      leaves,
    };
    let result: EvalTaskResult;
    if (traj.status === 'infra_error') {
      result = {
        ...base,
        correct: null,
        reward: null,
        infraError: `${traj.infraError?.code}: ${traj.infraError?.message}`,
      };
    } else {
      trajectories.push(traj);
      const score = scoreTrajectory(toRewardTrajectory(traj), task, options.reward);
      result = { ...base, correct: score.components.correctness === 1, reward: score.total };
    }
    leafCalls.delete(task.id);
    options.onEpisode?.(episodeOf(task, result, traj));
    options.onTask?.(result, ++done, tasks.length);
    return result;
  };
  const results = await mapBatches(tasks, options.concurrency ?? 16, async (batch, first) => {
    for (const task of batch) leafCalls.set(task.id, []);
    const groups = await runner.runGroups(
      batch.map((task, k) => ({ task: episodeTaskOf(task), seed: seed * 100_003 + first + k })),
      1,
    );
    return batch.map((task, k) => resultOf(task, groups[k]));
  });

  return {
    policyVersion: policy.version,
    mode,
    seed,
    ...groupResults(results),
    rollout: rolloutMetrics(trajectories),
    tasks: results,
    wallMs: performance.now() - started,
  };
}

/**
 * Evaluates a program that answers from the task alone, with no model and no sandbox (the regex-only baseline):
 * each answer graded by the reward's rule (`isCorrect`).
 */
export function evaluateProgram(
  program: (task: Task) => string,
  tasks: readonly Task[],
  options: Pick<EvalOptions, 'onTask' | 'onEpisode'> = {},
): EvalReport {
  if (tasks.length === 0) throw new RolloutError('INVALID_ARGUMENT', 'no tasks to evaluate');
  const started = performance.now();
  const results = tasks.map((task, i): EvalTaskResult => {
    const contextTokens = estimateTokens(task.context);
    const answer = program(task);
    const result: EvalTaskResult = {
      taskId: task.id,
      type: task.type,
      contextTokens,
      bucket: contextBucketOf(contextTokens),
      phrasing: phrasingOf(task),
      status: 'ok',
      stopReason: 'answer',
      answer,
      correct: isCorrect(answer, task),
      reward: null,
      turns: 0,
      completionTokens: 0,
      subcallTokens: 0,
      llmCalls: 0,
      maxDepth: 0,
      leaves: [],
    };
    options.onEpisode?.(episodeOf(task, result, null));
    options.onTask?.(result, i + 1, tasks.length);
    return result;
  });
  return {
    policyVersion: 0,
    mode: 'greedy',
    seed: 0,
    ...groupResults(results),
    rollout: rolloutMetrics([]),
    tasks: results,
    wallMs: performance.now() - started,
  };
}
