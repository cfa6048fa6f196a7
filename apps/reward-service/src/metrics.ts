import type { GroupReward, RewardGroupJob } from '@fathom/contracts';
import { counter, gauge, histogram, metricsClass } from '@fathom/observability';

/** The reward-service's Prometheus series (besides the queue metrics of libs/queue). */
export class RewardMetrics extends metricsClass(() => ({
  component: gauge('reward_component', 'Mean of each reward component over the last scored group', {
    labelNames: ['component'],
  }),
  reward: gauge('reward_mean', 'Mean total reward of the last scored group'),
  groups: counter('reward_groups_total', 'Groups scored'),
  zeroStdGroups: counter('reward_zero_std_groups_total', 'Scored groups whose rewards were all equal (no GRPO signal)'),
  excludedSamples: counter(
    'reward_excluded_samples_total',
    'Samples passed on unscored because their infra-error retries ran out',
  ),
  scoringSeconds: histogram('reward_scoring_seconds', 'Time to score one group'),
})) {
  observeGroup(reward: GroupReward | null, job: RewardGroupJob, scoringMs: number): void {
    this.groups.inc();
    this.excludedSamples.inc(job.excluded.length);
    this.scoringSeconds.observe(scoringMs / 1000);
    if (reward === null) return;
    if (reward.zeroStd) this.zeroStdGroups.inc();
    this.reward.set(reward.totals.mean);
    // The last group's components only: one its run's config no longer composes must not linger.
    this.component.reset();
    for (const [component, { mean }] of Object.entries(reward.perComponent)) this.component.set({ component }, mean);
  }
}
