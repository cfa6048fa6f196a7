import type { GroupReward, RewardGroupJob } from '@fathom/contracts';
import { metricFactory } from '@fathom/observability';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The reward-service's Prometheus series (besides the queue metrics of libs/queue). */
export class RewardMetrics {
  readonly component: Gauge;
  readonly reward: Gauge;
  readonly groups: Counter;
  readonly zeroStdGroups: Counter;
  readonly excludedSamples: Counter;
  readonly scoringSeconds: Histogram;

  constructor(registry: Registry) {
    const metric = metricFactory(registry);
    this.component = metric.gauge('reward_component', 'Mean of each reward component over the last scored group', {
      labelNames: ['component'],
    });
    this.reward = metric.gauge('reward_mean', 'Mean total reward of the last scored group');
    this.groups = metric.counter('reward_groups_total', 'Groups scored');
    this.zeroStdGroups = metric.counter(
      'reward_zero_std_groups_total',
      'Scored groups whose rewards were all equal (no GRPO signal)',
    );
    this.excludedSamples = metric.counter(
      'reward_excluded_samples_total',
      'Samples passed on unscored because their infra-error retries ran out',
    );
    this.scoringSeconds = metric.histogram('reward_scoring_seconds', 'Time to score one group');
  }

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
