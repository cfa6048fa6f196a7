import { counter, createMetricsRegistry, gauge, histogram, metricsClass } from '@fathom/observability';
import type { SandboxPoolStats } from '@fathom/sandbox';
import type { Counter } from 'prom-client';

/** Transports through which an episode is driven; a label on the latency histograms. */
export type Transport = 'http' | 'ws' | 'mcp' | 'grpc';

/** Where the sandbox pool's series read its stats at each scrape; unset until `observePool`. */
interface PoolStatsSource {
  read: (() => SandboxPoolStats) | null;
}

/** The env-service's Prometheus metrics, on a registry of its own (served at GET /metrics). */
export class EnvMetrics extends metricsClass((source: PoolStatsSource) => {
  const pool = () => source.read?.();
  return {
    stepSeconds: histogram(
      'env_step_seconds',
      'Latency of one env step (code run or answer), by transport and action kind',
      { labelNames: ['transport', 'kind'] },
    ),
    resetSeconds: histogram('env_reset_seconds', 'Latency of one env reset, by transport', {
      labelNames: ['transport'],
    }),
    activeSessions: gauge('env_active_sessions', 'Episodes currently open'),
    sandboxTimeouts: counter('env_sandbox_timeouts_total', 'Steps stopped by the CPU or wall-time limit'),
    sandboxOomRestarts: counter(
      'env_sandbox_worker_restarts_total',
      'Sandbox worker processes restarted after dying or being killed (a stuck step, a third lost isolate)',
      { collect: followTotal(() => pool()?.restarts) },
    ),
    sandboxMemoryLimits: counter('env_sandbox_memory_limits_total', 'Steps stopped by the isolate memory limit', {
      collect: followTotal(() => pool()?.totals.memoryLimits),
    }),
    sandboxLostIsolates: counter(
      'env_sandbox_lost_isolates_total',
      'Isolates V8 lost to an out-of-memory it could not recover from; each ended its episode and drained its worker',
      { collect: followTotal(() => pool()?.totals.lostIsolates) },
    ),
    sandboxLowPriorityEpisodes: counter(
      'env_sandbox_low_priority_episodes_total',
      'Episodes opened on a low-priority sandbox worker (their session ran into a limit on its last code step)',
      { collect: followTotal(() => pool()?.totals.lowPriorityEpisodes) },
    ),
    sandboxWarmIsolates: gauge('env_sandbox_warm_isolates', 'Warm isolates ready in the sandbox pool', {
      collect() {
        const stats = pool();
        if (stats) this.set(stats.warm);
      },
    }),
    llmCalls: counter(
      'env_llm_calls_total',
      'llm() sub-calls, by outcome and by who answered them: the service (its Inference endpoint) or the session client (serve_llm)',
      { labelNames: ['outcome', 'answered_by'] },
    ),
    errors: counter('env_errors_total', 'Requests answered with an error, by error code', { labelNames: ['code'] }),
    documents: counter(
      'env_documents_total',
      'Inline resets with context_sha256: document stored (sent with it), hit (named by a kept hash) or miss',
      { labelNames: ['outcome'] },
    ),
  };
}) {
  private readonly poolStats: PoolStatsSource;

  constructor() {
    const poolStats: PoolStatsSource = { read: null };
    super(createMetricsRegistry({ service: 'env-service' }), poolStats);
    this.poolStats = poolStats;
  }

  /** Reads the sandbox pool's cumulative counters at each scrape. */
  observePool(stats: () => SandboxPoolStats): void {
    this.poolStats.read = stats;
  }
}

/** A collect hook that brings a counter up to a cumulative total kept elsewhere (counters only go up). */
function followTotal(read: () => number | undefined): (this: Counter) => void {
  let seen = 0;
  return function (this: Counter) {
    const total = read();
    if (total !== undefined && total > seen) {
      this.inc(total - seen);
      seen = total;
    }
  };
}
