import { createMetricsRegistry, LATENCY_BUCKETS_S } from '@fathom/observability';
import type { SandboxPoolStats } from '@fathom/sandbox';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

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
    const registers = [this.registry];
    this.stepSeconds = new Histogram({
      name: 'env_step_seconds',
      help: 'Latency of one env step (code run or answer), by transport and action kind',
      labelNames: ['transport', 'kind'],
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    this.resetSeconds = new Histogram({
      name: 'env_reset_seconds',
      help: 'Latency of one env reset, by transport',
      labelNames: ['transport'],
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    this.activeSessions = new Gauge({ name: 'env_active_sessions', help: 'Episodes currently open', registers });
    this.sandboxTimeouts = new Counter({
      name: 'env_sandbox_timeouts_total',
      help: 'Steps stopped by the CPU or wall-time limit',
      registers,
    });
    const pool = () => this.poolStats?.();
    this.sandboxOomRestarts = new Counter({
      name: 'env_sandbox_worker_restarts_total',
      help: 'Sandbox worker processes restarted after dying or being killed (a stuck step, a third lost isolate)',
      registers,
      collect: followTotal(() => pool()?.restarts),
    });
    new Counter({
      name: 'env_sandbox_memory_limits_total',
      help: 'Steps stopped by the isolate memory limit',
      registers,
      collect: followTotal(() => pool()?.totals.memoryLimits),
    });
    new Counter({
      name: 'env_sandbox_lost_isolates_total',
      help: 'Isolates V8 lost to an out-of-memory it could not recover from; each ended its episode and drained its worker',
      registers,
      collect: followTotal(() => pool()?.totals.lostIsolates),
    });
    new Counter({
      name: 'env_sandbox_low_priority_episodes_total',
      help: 'Episodes opened on a low-priority sandbox worker (their session ran into a limit on its last code step)',
      registers,
      collect: followTotal(() => pool()?.totals.lowPriorityEpisodes),
    });
    new Gauge({
      name: 'env_sandbox_warm_isolates',
      help: 'Warm isolates ready in the sandbox pool',
      registers,
      collect() {
        const stats = pool();
        if (stats) this.set(stats.warm);
      },
    });
    this.llmCalls = new Counter({
      name: 'env_llm_calls_total',
      help: 'llm() sub-calls, by outcome and by who answered them: the service (its Inference endpoint) or the session client (serve_llm)',
      labelNames: ['outcome', 'answered_by'],
      registers,
    });
    this.errors = new Counter({
      name: 'env_errors_total',
      help: 'Requests answered with an error, by error code',
      labelNames: ['code'],
      registers,
    });
    this.documents = new Counter({
      name: 'env_documents_total',
      help: 'Inline resets with context_sha256: document stored (sent with it), hit (named by a kept hash) or miss',
      labelNames: ['outcome'],
      registers,
    });
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
