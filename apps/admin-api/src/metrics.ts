import { createMetricsRegistry, metricFactory } from '@fathom/observability';
import { QueueMetrics, type JobTransport } from '@fathom/queue';
import type { Counter, Histogram, Registry } from 'prom-client';

/** The admin API's Prometheus metrics (GET /metrics): process defaults, queue depths, HTTP requests. */
export class AdminMetrics {
  readonly registry: Registry;
  readonly queues: QueueMetrics;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly requestSeconds: Histogram<'method' | 'route'>;
  readonly errors: Counter<'code'>;

  constructor(transport: JobTransport, queueTimeoutMs: number) {
    this.registry = createMetricsRegistry({ service: 'admin-api' });
    const metric = metricFactory(this.registry);
    this.queues = new QueueMetrics(this.registry, transport, { timeoutMs: queueTimeoutMs });
    this.requests = metric.counter('admin_http_requests_total', 'HTTP requests answered, by route pattern and status', {
      labelNames: ['method', 'route', 'status'],
    });
    this.requestSeconds = metric.histogram('admin_http_request_seconds', 'HTTP request latency, by route pattern', {
      labelNames: ['method', 'route'],
    });
    this.errors = metric.counter('admin_errors_total', 'Requests answered with an error, by error code', {
      labelNames: ['code'],
    });
  }
}
