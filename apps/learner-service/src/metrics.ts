import { counter, gauge, histogram, metricsClass } from '@fathom/observability';
import type { GrpoStepRecord } from '@fathom/training';
import type { Gauge } from 'prom-client';

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** A step record's key of a reward component's mean: `rewards/<component>/mean`. */
const REWARD_COMPONENT_MEAN = /^rewards\/([a-z][a-z0-9_]*)\/mean$/;

/** The learner's Prometheus series: one sample per step of the run it is training. */
export class LearnerMetrics extends metricsClass(() => ({
  stepSeconds: histogram('learner_step_seconds', 'Wall time of one GRPO step (rollouts, scoring and update)', {
    buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
  }),
  steps: counter('learner_steps_total', 'GRPO steps completed'),
  policyVersion: gauge('policy_version', 'Newest policy version of the run being trained', {
    labelNames: ['run_id'],
  }),
  kl: gauge('kl', 'KL to the reference policy at the last step (k3 estimator)'),
  loss: gauge('learner_loss', 'GRPO loss at the last step'),
  reward: gauge('step_reward', 'Mean total reward of the last step'),
  rewardComponent: gauge('step_reward_component', 'Mean of each reward component at the last step', {
    labelNames: ['component'],
  }),
  fracRewardZeroStd: gauge('frac_reward_zero_std', 'Share of groups with equal rewards at the last step'),
  clipRatio: gauge('clip_ratio', 'Share of clipped tokens at the last step'),
  groupsTrainable: gauge('groups_trainable', 'Groups trained on at the last step'),
  logprobDiffMax: gauge('logprob_diff_max', 'Largest |behaviour − learner| log-prob difference at the last step'),
  skippedGroups: counter('skipped_groups_total', 'Groups not trained on, by reason', { labelNames: ['reason'] }),
  recreatedGroups: counter(
    'learner_groups_recreated_total',
    'Groups whose rollout the learner enqueued again: lost (in no queue), dead_lettered_before_resume',
    { labelNames: ['reason'] },
  ),
})) {
  observeStep(runId: string, record: GrpoStepRecord): void {
    const time = record.time as { step_s: number };
    this.stepSeconds.observe(time.step_s);
    this.steps.inc();
    this.policyVersion.set({ run_id: runId }, record.policy_version);
    const set = (g: Gauge, v: unknown) => {
      const x = num(v);
      if (x !== undefined) g.set(x);
    };
    set(this.kl, record.kl);
    set(this.loss, record.loss);
    set(this.reward, record.reward);
    set(this.fracRewardZeroStd, record.frac_reward_zero_std);
    set(this.clipRatio, record.clip_ratio);
    set(this.logprobDiffMax, record.logprob_diff_max);
    const groups = record.groups as { trainable: number; skipped: Record<string, number> };
    this.groupsTrainable.set(groups.trainable);
    for (const [reason, n] of Object.entries(groups.skipped)) if (n > 0) this.skippedGroups.inc({ reason }, n);
    // The last step's components only: one the run's config does not compose must not linger from another run.
    this.rewardComponent.reset();
    for (const [key, value] of Object.entries(record)) {
      const component = REWARD_COMPONENT_MEAN.exec(key)?.[1];
      const mean = num(value);
      if (component !== undefined && mean !== undefined) this.rewardComponent.set({ component }, mean);
    }
  }
}
