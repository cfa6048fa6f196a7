import type { GroupRollout } from '@fathom/contracts';
import { counter, gauge, histogram, metricsClass } from '@fathom/observability';

/** The rollout worker's Prometheus series (besides the queue metrics of libs/queue). */
export class RolloutMetrics extends metricsClass(() => ({
  tokensPerSecond: gauge('rollout_tokens_per_second', 'Tokens sampled per second of generation, over the last group'),
  sampledTokens: counter(
    'rollout_sampled_tokens_total',
    'Tokens sampled by the policy (root turns and llm() sub-calls)',
  ),
  episodes: counter('rollout_episodes_total', 'Episodes rolled out, by status', { labelNames: ['status'] }),
  infraFailures: counter(
    'rollout_infra_failures_total',
    'Samples that failed for infrastructure reasons (retried or excluded), by code',
    { labelNames: ['code'] },
  ),
  groupSeconds: histogram('rollout_group_seconds', 'Wall time of one group of G episodes', {
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
  }),
  envStepSeconds: histogram('rollout_env_step_seconds', 'Time one turn spent running its code in the sandbox'),
  weightSyncSeconds: histogram(
    'weight_sync_seconds',
    'Time a group waited for its policy version weights (0 when cached)',
  ),
  policyVersionLag: gauge(
    'policy_version_lag',
    'Newest announced policy version minus the version of the last group sampled',
    { labelNames: ['run_id'] },
  ),
})) {
  observeGroup(rollout: GroupRollout, generationMs: number, weightSyncMs: number): void {
    const all = [...rollout.trajectories, ...rollout.excluded];
    const tokens = all.reduce((n, t) => n + t.tokens.completion + t.tokens.subcall, 0);
    this.sampledTokens.inc(tokens);
    if (generationMs > 0) this.tokensPerSecond.set(tokens / (generationMs / 1000));
    for (const t of all) {
      this.episodes.inc({ status: t.status });
      for (const turn of t.turns) if (turn.action === 'code') this.envStepSeconds.observe(turn.envMs / 1000);
    }
    for (const f of rollout.infraFailures) this.infraFailures.inc({ code: f.code });
    this.groupSeconds.observe(generationMs / 1000);
    this.weightSyncSeconds.observe(weightSyncMs / 1000);
  }
}
