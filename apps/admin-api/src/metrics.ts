import { counter, createMetricsRegistry, histogram, metricsClass } from '@fathom/observability';
import { QueueMetrics, type JobTransport } from '@fathom/queue';

/** The admin API's Prometheus metrics (GET /metrics): process defaults, queue depths, HTTP requests. */
export class AdminMetrics extends metricsClass(() => ({
  requests: counter('admin_http_requests_total', 'HTTP requests answered, by route pattern and status', {
    labelNames: ['method', 'route', 'status'],
  }),
  requestSeconds: histogram('admin_http_request_seconds', 'HTTP request latency, by route pattern', {
    labelNames: ['method', 'route'],
  }),
  errors: counter('admin_errors_total', 'Requests answered with an error, by error code', { labelNames: ['code'] }),
})) {
  readonly queues: QueueMetrics;

  constructor(transport: JobTransport, queueTimeoutMs: number) {
    super(createMetricsRegistry({ service: 'admin-api' }));
    this.queues = new QueueMetrics(this.registry, transport, { timeoutMs: queueTimeoutMs });
  }
}
