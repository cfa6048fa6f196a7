import { meanStd, rewardComponentNames, type StepGroup } from '@fathom/contracts';
import { STEP_SKIP_REASONS, type StepSelection } from '@fathom/grpo';
import { rolloutMetrics } from '@fathom/rlm';
import type { UpdateMetrics, UpdateTimings } from './learner';

/** Wall-clock figures of a step: the only part of a record that differs between two runs of the same seed. */
export interface StepTimings {
  generationMs: number;
  scoringMs: number;
  updateMs: number;
  /** The update's parts; absent where the caller did not time them. */
  updatePhases?: UpdateTimings;
  /** Building the decoder from the updated weights (in-process weight sync). */
  weightSyncMs: number;
  /**
   * How long the step waited for its rollouts: all of their time when synchronous, only what was left of it when
   * they ran during the previous step's update (maxStaleness ≥ 1).
   */
  rolloutWaitMs: number;
  stepMs: number;
}

/**
 * One line of metrics.jsonl (`kind: "train"`). Names follow TRL where it has one (`loss`, `kl`,
 * `clip_ratio/low_mean`, `reward`, `reward_std`, `frac_reward_zero_std`, `rewards/<component>/mean`,
 * `completions/mean_length`, `entropy`, `grad_norm`, `learning_rate`); the rest answer "why did this step learn
 * what it learned". The update fields are absent when no group was trainable. `time` holds every figure of the
 * machine (wall clock, resident memory); everything else is a function of the seed, config and data.
 */
export type GrpoStepRecord = {
  kind: 'train';
  step: number;
  /** Version the step's rollouts were sampled with; `policy_version` is the version after the step. */
  sampled_version: number;
  policy_version: number;
  updated: boolean;
} & Partial<Omit<UpdateMetrics, 'clip_ratio_low' | 'clip_ratio_high'>> & {
    [key: string]: unknown;
  };

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The metrics.jsonl record of one step: `versions.sampled` sampled its rollouts, `versions.policy` is the learner's
 * after its update (one more than the version it updated, which is `sampled` unless the rollouts overlapped).
 */
export function stepRecord(
  step: number,
  versions: { sampled: number; policy: number },
  groups: readonly StepGroup[],
  selection: StepSelection,
  update: UpdateMetrics | null,
  timings: StepTimings,
): GrpoStepRecord {
  const scored = groups.flatMap((g) => g.trajectories);
  const results = groups.flatMap((g) => g.results);
  const rewards = groups.flatMap((g) => g.rewards);
  const rollout = rolloutMetrics([...scored, ...groups.flatMap((g) => g.excluded)]);
  const {
    env_step_ms_mean,
    env_step_ms_p50,
    generation_ms_mean,
    subcall_latency_ms_per_depth,
    status,
    completion_tokens_mean,
    completion_tokens_min,
    completion_tokens_max,
    llm_calls_mean,
    ...episodes
  } = rollout;
  const skippedBy = Object.fromEntries(STEP_SKIP_REASONS.map((r) => [r, 0])) as Record<string, number>;
  for (const s of selection.skipped) skippedBy[s.reason]++;
  const infraFailures: Record<string, number> = {};
  for (const f of groups.flatMap((g) => g.infraFailures)) infraFailures[f.code] = (infraFailures[f.code] ?? 0) + 1;
  const sampledTokens = scored.reduce((n, t) => n + t.tokens.completion + t.tokens.subcall, 0);
  const { clip_ratio_low, clip_ratio_high, ...u } = update ?? ({} as Partial<UpdateMetrics>);

  return {
    kind: 'train',
    step,
    sampled_version: versions.sampled,
    policy_version: versions.policy,
    updated: update !== null,
    ...u,
    ...(update ? { 'clip_ratio/low_mean': clip_ratio_low, 'clip_ratio/high_mean': clip_ratio_high } : {}),
    reward: mean(rewards),
    reward_std: mean(groups.filter((g) => g.rewards.length >= 2).map((g) => meanStd(g.rewards).std)),
    ...Object.fromEntries(
      rewardComponentNames(results).map((c) => [`rewards/${c}/mean`, mean(results.map((r) => r.components[c]))]),
    ),
    frac_reward_zero_std: selection.fracRewardZeroStd,
    'completions/mean_length': completion_tokens_mean,
    'completions/min_length': completion_tokens_min,
    'completions/max_length': completion_tokens_max,
    llm_calls: llm_calls_mean,
    sampled_tokens: sampledTokens,
    groups: {
      submitted: selection.submitted,
      trainable: selection.trainable.length,
      skipped: skippedBy,
    },
    skipped: selection.skipped,
    staleness_histogram: selection.stalenessHistogram,
    status,
    excluded_samples: groups.reduce((n, g) => n + g.excluded.length, 0),
    infra_failures: infraFailures,
    episodes,
    time: {
      generation_s: timings.generationMs / 1000,
      scoring_s: timings.scoringMs / 1000,
      update_s: timings.updateMs / 1000,
      ...(timings.updatePhases
        ? {
            update_logprobs_s: timings.updatePhases.logprobsMs / 1000,
            update_train_s: timings.updatePhases.trainMs / 1000,
            update_optimizer_s: timings.updatePhases.optimizerMs / 1000,
          }
        : {}),
      weight_sync_s: timings.weightSyncMs / 1000,
      rollout_wait_s: timings.rolloutWaitMs / 1000,
      step_s: timings.stepMs / 1000,
      // The process's resident memory as the step is recorded: a machine figure like the times, not a seeded one.
      learner_rss_mb: Math.round(process.memoryUsage.rss() / 2 ** 20),
      tokens_per_s: timings.generationMs > 0 ? sampledTokens / (timings.generationMs / 1000) : 0,
      env_step_ms_mean,
      env_step_ms_p50,
      generation_ms_mean,
      subcall_latency_ms_per_depth,
    },
  };
}
