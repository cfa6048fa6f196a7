import { createMetricsRegistry, sumSamples } from '@fathom/observability';
import { describe, expect, it } from 'vitest';
import { LearnerMetrics } from './metrics';

describe('LearnerMetrics', () => {
  it("serves one step's record as its fathom_ series", async () => {
    const registry = createMetricsRegistry({ service: 'learner-service', defaultMetrics: false });
    new LearnerMetrics(registry).observeStep('run-1', {
      kind: 'train',
      step: 1,
      sampled_version: 0,
      policy_version: 1,
      updated: true,
      kl: 0.02,
      loss: 0.5,
      reward: 0.75,
      frac_reward_zero_std: 0.25,
      time: { step_s: 12 },
      groups: { trainable: 3, skipped: { zero_std: 1, stale: 0 } },
      'rewards/correctness/mean': 0.5,
    });
    const text = await registry.metrics();
    expect(sumSamples(text, 'fathom_learner_step_seconds_count')).toBe(1);
    expect(sumSamples(text, 'fathom_learner_steps_total')).toBe(1);
    expect(sumSamples(text, 'fathom_policy_version', { run_id: 'run-1' })).toBe(1);
    expect(sumSamples(text, 'fathom_kl')).toBe(0.02);
    expect(sumSamples(text, 'fathom_step_reward')).toBe(0.75);
    expect(sumSamples(text, 'fathom_step_reward_component', { component: 'correctness' })).toBe(0.5);
    expect(sumSamples(text, 'fathom_groups_trainable')).toBe(3);
    expect(text).toContain('fathom_skipped_groups_total{reason="zero_std",service="learner-service"} 1');
    expect(text).not.toContain('reason="stale"');
  });
});
