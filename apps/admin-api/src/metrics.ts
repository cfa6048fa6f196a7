import { createMetricsRegistry, LATENCY_BUCKETS_S } from '@fathom/observability';
import { QueueMetrics, type JobTransport } from '@fathom/queue';
import { Counter, Histogram, type Registry } from 'prom-client';

/** The admin API's Prometheus metrics (GET /metrics): process defaults, queue depths, HTTP requests. */
export class AdminMetrics {
  readonly registry: Registry;
  readonly queues: QueueMetrics;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestSeconds: Histogram<'method' | 'route'>;
  readonly errors: Counter<'code'>;

  constructor(transport: JobTransport, queueTimeoutMs: number) {
    this.registry = createMetricsRegistry({ service: 'admin-api' });
    const registers = [this.registry];
    this.queues = new QueueMetrics(this.registry, transport, { timeoutMs: queueTimeoutMs });
    this.requests = new Counter({
      name: 'admin_http_requests_total',
      help: 'HTTP requests answered, by route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.requestSeconds = new Histogram({
      name: 'admin_http_request_seconds',
      help: 'HTTP request latency, by route pattern',
      labelNames: ['method', 'route'],
      buckets: LATENCY_BUCKETS_S,
      registers,
    });
    this.errors = new Counter({
      name: 'admin_errors_total',
      help: 'Requests answered with an error, by error code',
      labelNames: ['code'],
      registers,
    });
  }
}
