import type {
  EpisodeStatus,
  EpisodeTrajectory,
  RewardConfigInput,
  StopReason,
  Task,
  TaskType,
} from '@fathom/contracts';
import { TASK_TYPES } from '@fathom/contracts';
import { scoreTrajectory } from '@fathom/rewards';
import type { SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { resolveEpisodeConfig, type EpisodeConfigInput } from '../episode/episode.config';
import { EpisodeRunner, episodeTaskOf } from '../episode/episode.runner';
import { RolloutError, RolloutErrorCode } from '../episode/errors';
import type { Policy } from '../episode/policy';
import { flattenCalls, rolloutMetrics, toRewardTrajectory, type RolloutMetrics } from '../episode/trajectory';

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

export interface EvalOptions {
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  /** `greedy` (default) samples at temperature 0 whatever the episode config says; `sampled` uses its sampling. */
  mode?: 'greedy' | 'sampled';
  episode?: EpisodeConfigInput;
  reward?: RewardConfigInput;
  /** Base seed of the sampled mode; task i uses seed + i. Default 0. */
  seed?: number;
  /** Tasks run at once. Default 4. */
  concurrency?: number;
  /** Called after each task (progress bars). */
  onTask?: (result: EvalTaskResult, done: number, total: number) => void;
}

/** One task's outcome. `reward` and `correct` are null when the episode was excluded (infra error). */
export interface EvalTaskResult {
  taskId: string;
  type: TaskType;
  contextTokens: number;
  bucket: ContextBucket;
  status: EpisodeStatus;
  stopReason: StopReason;
  answer: string | null;
  correct: boolean | null;
  reward: number | null;
  turns: number;
  completionTokens: number;
  subcallTokens: number;
  llmCalls: number;
  /** Why the task was excluded (after retries), when it was. */
  infraError?: string;
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
}

export interface EvalReport {
  policyVersion: number;
  mode: 'greedy' | 'sampled';
  overall: EvalStats;
  byType: Partial<Record<TaskType, EvalStats>>;
  /** Only buckets that hold at least one task. */
  byBucket: Partial<Record<ContextBucket, EvalStats>>;
  /** Multi-turn metrics of the scored episodes. */
  rollout: RolloutMetrics;
  tasks: EvalTaskResult[];
  wallMs: number;
}

function stats(results: readonly EvalTaskResult[]): EvalStats {
  const scored = results.filter((r) => r.reward !== null);
  const mean = (f: (r: EvalTaskResult) => number) =>
    scored.length === 0 ? 0 : scored.reduce((s, r) => s + f(r), 0) / scored.length;
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
  };
}

/** Runs `tasks` with up to `limit` at once, in input order of results. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Evaluates a policy: one episode per task (greedy by default), scored with `@fathom/rewards`, aggregated
 * overall, per task type and per context-length bucket. An episode that ends in `infra_error` after its retries
 * is excluded from every mean and counted in `excluded` — never scored as wrong.
 */
export async function evaluate(policy: Policy, tasks: readonly Task[], options: EvalOptions): Promise<EvalReport> {
  if (tasks.length === 0) throw new RolloutError(RolloutErrorCode.InvalidArgument, 'no tasks to evaluate');
  const started = performance.now();
  const mode = options.mode ?? 'greedy';
  const episode = resolveEpisodeConfig(options.episode);
  const runner = new EpisodeRunner(
    { sandbox: options.sandbox, policy },
    mode === 'greedy' ? { ...episode, sampling: { ...episode.sampling, temperature: 0 } } : episode,
  );
  const trajectories: EpisodeTrajectory[] = [];
  let done = 0;
  const results = await mapLimited(tasks, options.concurrency ?? 4, async (task, i) => {
    const group = await runner.runGroup(episodeTaskOf(task), { G: 1, seed: (options.seed ?? 0) + i });
    const contextTokens = estimateTokens(task.context);
    const traj = group.trajectories[0] ?? group.excluded[0];
    const base = {
      taskId: task.id,
      type: task.type,
      contextTokens,
      bucket: contextBucketOf(contextTokens),
      status: traj.status,
      stopReason: traj.stopReason,
      answer: traj.answer,
      turns: traj.turns.length,
      completionTokens: traj.tokens.completion,
      subcallTokens: traj.tokens.subcall,
      llmCalls: flattenCalls(traj.recursionTree).length,
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
    options.onTask?.(result, ++done, tasks.length);
    return result;
  });

  const byType: EvalReport['byType'] = {};
  for (const type of TASK_TYPES) {
    const of = results.filter((r) => r.type === type);
    if (of.length > 0) byType[type] = stats(of);
  }
  const byBucket: EvalReport['byBucket'] = {};
  for (const bucket of CONTEXT_BUCKETS) {
    const of = results.filter((r) => r.bucket === bucket.name);
    if (of.length > 0) byBucket[bucket.name] = stats(of);
  }
  return {
    policyVersion: policy.version,
    mode,
    overall: stats(results),
    byType,
    byBucket,
    rollout: rolloutMetrics(trajectories),
    tasks: results,
    wallMs: performance.now() - started,
  };
}

/** The report as a fixed-width table: one row overall, then per task type, then per context bucket. */
export function formatEvalTable(report: EvalReport): string {
  const header = ['group', 'n', 'excluded', 'accuracy', 'reward', 'tokens', 'llm calls', 'turns'];
  const row = (name: string, s: EvalStats) => [
    name,
    String(s.n),
    String(s.excluded),
    s.scored === 0 ? '—' : `${(100 * s.accuracy).toFixed(1)}%`,
    s.scored === 0 ? '—' : s.meanReward.toFixed(3),
    s.scored === 0 ? '—' : s.meanTokens.toFixed(0),
    s.scored === 0 ? '—' : s.meanLlmCalls.toFixed(2),
    s.scored === 0 ? '—' : s.meanTurns.toFixed(2),
  ];
  const rows = [
    row('overall', report.overall),
    ...Object.entries(report.byType).map(([type, s]) => row(`type ${type}`, s)),
    ...Object.entries(report.byBucket).map(([bucket, s]) => row(`ctx ${bucket}`, s)),
  ];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [
    `policy version ${report.policyVersion}, ${report.mode}, ${report.overall.n} tasks, ${(report.wallMs / 1000).toFixed(1)} s`,
    line(header),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
  ].join('\n');
}
