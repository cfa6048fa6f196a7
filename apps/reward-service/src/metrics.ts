import type { GroupReward, RewardGroupJob } from '@fathom/contracts';
import { LATENCY_BUCKETS_S } from '@fathom/observability';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The reward-service's Prometheus series (besides the queue metrics of libs/queue). */
export class RewardMetrics {
  readonly component: Gauge;
  readonly reward: Gauge;
  readonly groups: Counter;
  readonly zeroStdGroups: Counter;
  readonly excludedSamples: Counter;
  readonly scoringSeconds: Histogram;

  constructor(registry: Registry) {
    const registers = [registry];
    this.component = new Gauge({
      name: 'fathom_reward_component',
      help: 'Mean of each reward component over the last scored group',
      labelNames: ['component'],
      registers,
    });
    this.reward = new Gauge({
      name: 'fathom_reward_mean',
      help: 'Mean total reward of the last scored group',
      registers,
    });
    this.groups = new Counter({ name: 'fathom_reward_groups_total', help: 'Groups scored', registers });
    this.zeroStdGroups = new Counter({
      name: 'fathom_reward_zero_std_groups_total',
      help: 'Scored groups whose rewards were all equal (no GRPO signal)',
      registers,
    });
    this.excludedSamples = new Counter({
      name: 'fathom_reward_excluded_samples_total',
      help: 'Samples passed on unscored because their infra-error retries ran out',
      registers,
    });
    this.scoringSeconds = new Histogram({
      name: 'fathom_reward_scoring_seconds',
      help: 'Time to score one group',
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
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
