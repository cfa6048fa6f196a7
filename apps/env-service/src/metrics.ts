import { createMetricsRegistry, metricFactory } from '@fathom/observability';
import type { SandboxPoolStats } from '@fathom/sandbox';
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Transports through which an episode is driven; a label on the latency histograms. */
export type Transport = 'http' | 'ws' | 'mcp' | 'grpc';

/** The env-service's Prometheus metrics, on a registry of its own (served at GET /metrics). */
export class EnvMetrics {
  readonly registry: Registry;
  readonly stepSeconds: Histogram<'transport' | 'kind'>;
  readonly resetSeconds: Histogram<'transport'>;
  readonly activeSessions: Gauge;
  readonly sandboxTimeouts: Counter;
  readonly sandboxOomRestarts: Counter;
  readonly llmCalls: Counter<'outcome' | 'answered_by'>;
  readonly errors: Counter<'code'>;
  readonly documents: Counter<'outcome'>;
  private poolStats: (() => SandboxPoolStats) | null = null;

  constructor() {
    this.registry = createMetricsRegistry({ service: 'env-service' });
    const metric = metricFactory(this.registry);
    this.stepSeconds = metric.histogram(
      'env_step_seconds',
      'Latency of one env step (code run or answer), by transport and action kind',
      { labelNames: ['transport', 'kind'] },
    );
    this.resetSeconds = metric.histogram('env_reset_seconds', 'Latency of one env reset, by transport', {
      labelNames: ['transport'],
    });
    this.activeSessions = metric.gauge('env_active_sessions', 'Episodes currently open');
    this.sandboxTimeouts = metric.counter('env_sandbox_timeouts_total', 'Steps stopped by the CPU or wall-time limit');
    const pool = () => this.poolStats?.();
    this.sandboxOomRestarts = metric.counter(
      'env_sandbox_worker_restarts_total',
      'Sandbox worker processes restarted after dying or being killed (a stuck step, a third lost isolate)',
      { collect: followTotal(() => pool()?.restarts) },
    );
    metric.counter('env_sandbox_memory_limits_total', 'Steps stopped by the isolate memory limit', {
      collect: followTotal(() => pool()?.totals.memoryLimits),
    });
    metric.counter(
      'env_sandbox_lost_isolates_total',
      'Isolates V8 lost to an out-of-memory it could not recover from; each ended its episode and drained its worker',
      { collect: followTotal(() => pool()?.totals.lostIsolates) },
    );
    metric.counter(
      'env_sandbox_low_priority_episodes_total',
      'Episodes opened on a low-priority sandbox worker (their session ran into a limit on its last code step)',
      { collect: followTotal(() => pool()?.totals.lowPriorityEpisodes) },
    );
    metric.gauge('env_sandbox_warm_isolates', 'Warm isolates ready in the sandbox pool', {
      collect() {
        const stats = pool();
        if (stats) this.set(stats.warm);
      },
    });
    this.llmCalls = metric.counter(
      'env_llm_calls_total',
      'llm() sub-calls, by outcome and by who answered them: the service (its Inference endpoint) or the session client (serve_llm)',
      { labelNames: ['outcome', 'answered_by'] },
    );
    this.errors = metric.counter('env_errors_total', 'Requests answered with an error, by error code', {
      labelNames: ['code'],
    });
    this.documents = metric.counter(
      'env_documents_total',
      'Inline resets with context_sha256: document stored (sent with it), hit (named by a kept hash) or miss',
      { labelNames: ['outcome'] },
    );
  }

  /** Reads the sandbox pool's cumulative counters at each scrape. */
  observePool(stats: () => SandboxPoolStats): void {
    this.poolStats = stats;
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
