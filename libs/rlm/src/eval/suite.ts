import { meanStd, type Task } from '@fathom/contracts';
import { RolloutError } from '../episode/errors';
import type { Policy } from '../episode/policy';
import {
  evaluate,
  evaluateProgram,
  type EvalEpisode,
  type EvalOptions,
  type EvalReport,
  type EvalStats,
  type EvalTaskResult,
  type TaskLeafReader,
} from './evaluate';

/**
 * Baselines run on the same tasks as the policy:
 * - `regex`: a no-model program (the best regex programs written against the train families);
 * - `no-llm`: this policy with `llm()` disabled (every call fails in the guest);
 * - `oracle`: this policy with every leaf `llm()` call answered by the gold reader of the task.
 */
export const EVAL_BASELINES = ['regex', 'no-llm', 'oracle'] as const;
export type EvalBaseline = (typeof EVAL_BASELINES)[number];
export type EvalSystem = 'policy' | EvalBaseline;

/** Mean, sample standard deviation (n − 1; 0 for one value) and range of a metric over seeds. */
export interface Spread {
  mean: number;
  sd: number;
  min: number;
  max: number;
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new RolloutError('INVALID_ARGUMENT', 'spread of no values');
  const { mean, std } = meanStd(values);
  return { mean, sd: std, min: Math.min(...values), max: Math.max(...values) };
}

/** One group's figures over a system's runs (one run per seed). */
export interface EvalSummaryStats {
  n: number;
  /** Excluded tasks (infra errors), summed over runs. */
  excluded: number;
  accuracy: Spread;
  meanLlmCalls: Spread;
  callingShare: Spread;
  meanMaxDepth: Spread;
  maxDepth: number;
  /** Over the runs whose group scored a leaf; null when none did. */
  leafAccuracy: Spread | null;
  /**
   * Leaf calls, scored leaf calls, leaf calls without evidence in their chunk and those of them answered with a
   * value instead of "unknown", summed over runs.
   */
  leafCalls: number;
  leafScored: number;
  leafNoEvidence: number;
  leafNoEvidenceAnswered: number;
}

export interface EvalSummary {
  overall: EvalSummaryStats;
  byType: Record<string, EvalSummaryStats>;
  byBucket: Record<string, EvalSummaryStats>;
  byPhrasing: Record<string, EvalSummaryStats>;
  byTypeAndBucket: Record<string, EvalSummaryStats>;
}

export interface EvalSystemReport {
  system: EvalSystem;
  /** One run per seed; the regex baseline's single run carries seed 0. */
  runs: EvalReport[];
  summary: EvalSummary;
}

export interface EvalSuiteReport {
  policyVersion: number;
  mode: 'greedy' | 'sampled';
  seeds: number[];
  tasks: number;
  /** The policy first, then the baselines asked for, in EVAL_BASELINES order. */
  systems: EvalSystemReport[];
  wallMs: number;
}

/** Progress of a suite: one call per task of every run. */
export interface EvalProgress {
  system: EvalSystem;
  seed: number;
  result: EvalTaskResult;
  /** Tasks finished over the whole suite, and its total. */
  done: number;
  total: number;
}

export interface EvalSuiteOptions extends Omit<EvalOptions, 'seed' | 'leafReader' | 'onTask' | 'onEpisode'> {
  /** Seeds of the sampled mode, one run each (default [0]); greedy runs once and accepts at most one seed. */
  seeds?: readonly number[];
  /** Which baselines to run (default all three). */
  baselines?: readonly EvalBaseline[];
  /** The no-model program of the `regex` baseline (e.g. `runRegexBaseline` of `@fathom/tasks`). */
  regexProgram?: (task: Task) => string;
  /** The gold reader of the `oracle` baseline (e.g. `oracleRead` of `@fathom/tasks`). */
  oracleReader?: TaskLeafReader;
  onTask?: (progress: EvalProgress) => void;
  onEpisode?: (episode: EvalEpisode & { system: EvalSystem; seed: number }) => void;
}

function summarize(runs: readonly EvalReport[]): EvalSummary {
  const over = (pick: (run: EvalReport) => EvalStats | undefined): EvalSummaryStats => {
    const stats = runs.map(pick).filter((s): s is EvalStats => s !== undefined);
    const spread = (f: (s: EvalStats) => number) => spreadOf(stats.map(f));
    const leafRuns = stats.filter((s) => s.leafAccuracy !== null);
    const sum = (f: (s: EvalStats) => number) => stats.reduce((t, s) => t + f(s), 0);
    return {
      n: stats[0].n,
      excluded: sum((s) => s.excluded),
      accuracy: spread((s) => s.accuracy),
      meanLlmCalls: spread((s) => s.meanLlmCalls),
      callingShare: spread((s) => s.callingShare),
      meanMaxDepth: spread((s) => s.meanMaxDepth),
      maxDepth: Math.max(...stats.map((s) => s.maxDepth)),
      leafAccuracy: leafRuns.length === 0 ? null : spreadOf(leafRuns.map((s) => s.leafAccuracy!)),
      leafCalls: sum((s) => s.leafCalls),
      leafScored: sum((s) => s.leafScored),
      leafNoEvidence: sum((s) => s.leafNoEvidence),
      leafNoEvidenceAnswered: sum((s) => s.leafNoEvidenceAnswered),
    };
  };
  const groups = <K extends 'byType' | 'byBucket' | 'byPhrasing' | 'byTypeAndBucket'>(key: K) =>
    Object.fromEntries(
      Object.keys(runs[0][key]).map((name) => [
        name,
        over((run) => (run[key] as Record<string, EvalStats | undefined>)[name]),
      ]),
    );
  return {
    overall: over((run) => run.overall),
    byType: groups('byType'),
    byBucket: groups('byBucket'),
    byPhrasing: groups('byPhrasing'),
    byTypeAndBucket: groups('byTypeAndBucket'),
  };
}

/**
 * Evaluates a policy and its baselines on the same tasks, in one report: the policy, then (as asked) the regex-only
 * program, the policy with `llm()` disabled and the policy with an oracle reader. Greedy runs each once; sampled
 * runs each policy-driven system once per seed, and every figure is reported with its spread over the seeds.
 */
export async function evaluateSuite(
  policy: Policy,
  tasks: readonly Task[],
  options: EvalSuiteOptions,
): Promise<EvalSuiteReport> {
  const started = performance.now();
  const mode = options.mode ?? 'greedy';
  const seeds = [...(options.seeds ?? [0])];
  if (seeds.length === 0) throw new RolloutError('INVALID_ARGUMENT', 'no seeds to evaluate');
  if (mode === 'greedy' && seeds.length > 1)
    throw new RolloutError('INVALID_ARGUMENT', `greedy decoding is deterministic; got seeds ${seeds}`);
  const baselines = EVAL_BASELINES.filter((b) => (options.baselines ?? EVAL_BASELINES).includes(b));
  if (baselines.includes('regex') && options.regexProgram === undefined)
    throw new RolloutError('INVALID_ARGUMENT', 'the regex baseline needs a regexProgram');
  if (baselines.includes('oracle') && options.oracleReader === undefined)
    throw new RolloutError('INVALID_ARGUMENT', 'the oracle baseline needs an oracleReader');

  const policyRuns = 1 + baselines.filter((b) => b !== 'regex').length;
  const total = tasks.length * (policyRuns * seeds.length + (baselines.includes('regex') ? 1 : 0));
  let done = 0;
  const hooks = (system: EvalSystem, seed: number) => ({
    onTask: (result: EvalTaskResult) => options.onTask?.({ system, seed, result, done: ++done, total }),
    onEpisode: (episode: EvalEpisode) => options.onEpisode?.({ system, seed, ...episode }),
  });
  const { sandbox, reward, concurrency, readerPolicy } = options;
  const runPolicy = async (system: Exclude<EvalSystem, 'regex'>): Promise<EvalSystemReport> => {
    const runs: EvalReport[] = [];
    for (const seed of seeds) {
      const episode =
        system === 'no-llm'
          ? { ...options.episode, subcalls: { ...options.episode?.subcalls, enabled: false } }
          : options.episode;
      runs.push(
        await evaluate(policy, tasks, {
          sandbox,
          mode,
          reward,
          concurrency,
          episode,
          seed,
          readerPolicy,
          leafReader: system === 'oracle' ? options.oracleReader : undefined,
          ...hooks(system, seed),
        }),
      );
    }
    return { system, runs, summary: summarize(runs) };
  };

  const systems: EvalSystemReport[] = [await runPolicy('policy')];
  for (const baseline of baselines) {
    if (baseline === 'regex') {
      const run = evaluateProgram(options.regexProgram!, tasks, hooks('regex', 0));
      systems.push({ system: 'regex', runs: [run], summary: summarize([run]) });
    } else {
      systems.push(await runPolicy(baseline));
    }
  }
  return {
    policyVersion: policy.version,
    mode,
    seeds,
    tasks: tasks.length,
    systems,
    wallMs: performance.now() - started,
  };
}
