import type { GrpoStepRecord } from '@fathom/training';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** A step record's key of a reward component's mean: `rewards/<component>/mean`. */
const REWARD_COMPONENT_MEAN = /^rewards\/([a-z][a-z0-9_]*)\/mean$/;

/** The learner's Prometheus series: one sample per step of the run it is training. */
export class LearnerMetrics {
  readonly stepSeconds: Histogram;
  readonly steps: Counter;
  readonly policyVersion: Gauge;
  readonly kl: Gauge;
  readonly loss: Gauge;
  readonly reward: Gauge;
  readonly rewardComponent: Gauge;
  readonly fracRewardZeroStd: Gauge;
  readonly clipRatio: Gauge;
  readonly groupsTrainable: Gauge;
  readonly logprobDiffMax: Gauge;
  readonly skippedGroups: Counter;
  readonly recreatedGroups: Counter;

  constructor(registry: Registry) {
    const registers = [registry];
    const gauge = (name: string, help: string, labelNames: string[] = []) =>
      new Gauge({ name, help, labelNames, registers });
    this.stepSeconds = new Histogram({
      name: 'fathom_learner_step_seconds',
      help: 'Wall time of one GRPO step (rollouts, scoring and update)',
      buckets: [1, 5, 10, 30, 60, 120, 300, 600, 1800],
      registers,
    });
    this.steps = new Counter({ name: 'fathom_learner_steps_total', help: 'GRPO steps completed', registers });
    this.policyVersion = gauge('fathom_policy_version', 'Newest policy version of the run being trained', ['run_id']);
    this.kl = gauge('fathom_kl', 'KL to the reference policy at the last step (k3 estimator)');
    this.loss = gauge('fathom_learner_loss', 'GRPO loss at the last step');
    this.reward = gauge('fathom_step_reward', 'Mean total reward of the last step');
    this.rewardComponent = gauge('fathom_step_reward_component', 'Mean of each reward component at the last step', [
      'component',
    ]);
    this.fracRewardZeroStd = gauge(
      'fathom_frac_reward_zero_std',
      'Share of groups with equal rewards at the last step',
    );
    this.clipRatio = gauge('fathom_clip_ratio', 'Share of clipped tokens at the last step');
    this.groupsTrainable = gauge('fathom_groups_trainable', 'Groups trained on at the last step');
    this.logprobDiffMax = gauge(
      'fathom_logprob_diff_max',
      'Largest |behaviour − learner| log-prob difference at the last step',
    );
    this.skippedGroups = new Counter({
      name: 'fathom_skipped_groups_total',
      help: 'Groups not trained on, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.recreatedGroups = new Counter({
      name: 'fathom_learner_groups_recreated_total',
      help: 'Groups whose rollout the learner enqueued again: lost (in no queue), dead_lettered_before_resume',
      labelNames: ['reason'],
      registers,
    });
  }

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
