import { LATENCY_BUCKETS_S } from '@fathom/observability';
import type { GroupRollout } from '@fathom/rlm';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The rollout worker's Prometheus series (besides the queue metrics of libs/queue). */
export class RolloutMetrics {
  readonly tokensPerSecond: Gauge;
  readonly sampledTokens: Counter;
  readonly episodes: Counter;
  readonly infraFailures: Counter;
  readonly groupSeconds: Histogram;
  readonly envStepSeconds: Histogram;
  readonly weightSyncSeconds: Histogram;
  readonly policyVersionLag: Gauge;

  constructor(registry: Registry) {
    const registers = [registry];
    this.tokensPerSecond = new Gauge({
      name: 'fathom_rollout_tokens_per_second',
      help: 'Tokens sampled per second of generation, over the last group',
      registers,
    });
    this.sampledTokens = new Counter({
      name: 'fathom_rollout_sampled_tokens_total',
      help: 'Tokens sampled by the policy (root turns and llm() sub-calls)',
      registers,
    });
    this.episodes = new Counter({
      name: 'fathom_rollout_episodes_total',
      help: 'Episodes rolled out, by status',
      labelNames: ['status'],
      registers,
    });
    this.infraFailures = new Counter({
      name: 'fathom_rollout_infra_failures_total',
      help: 'Samples that failed for infrastructure reasons (retried or excluded), by code',
      labelNames: ['code'],
      registers,
    });
    this.groupSeconds = new Histogram({
      name: 'fathom_rollout_group_seconds',
      help: 'Wall time of one group of G episodes',
      buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600],
      registers,
    });
    this.envStepSeconds = new Histogram({
      name: 'fathom_rollout_env_step_seconds',
      help: 'Time one turn spent running its code in the sandbox',
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    this.weightSyncSeconds = new Histogram({
      name: 'fathom_weight_sync_seconds',
      help: 'Time a group waited for its policy version weights (0 when cached)',
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    this.policyVersionLag = new Gauge({
      name: 'fathom_policy_version_lag',
      help: 'Newest announced policy version minus the version of the last group sampled',
      labelNames: ['run_id'],
      registers,
    });
  }

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
