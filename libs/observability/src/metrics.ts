import { collectDefaultMetrics, Registry } from 'prom-client';

export interface MetricsRegistryOptions {
  /** Value of the `service` label on every series, e.g. "env-service". */
  service: string;
  /** Also collect prom-client's default process metrics (CPU, memory, event-loop lag). Default true. */
  defaultMetrics?: boolean;
}

/**
 * A fresh prom-client registry for one service. Each service (and each test instance of it) owns its registry
 * instead of the global one, so two instances in one process never collide on metric names.
 */
export function createMetricsRegistry(options: MetricsRegistryOptions): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service: options.service });
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

/** Buckets in seconds for sub-millisecond to multi-second operations (env steps, RPCs). */
export const LATENCY_BUCKETS_S = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/**
 * The sum of a metric's samples in a Prometheus text exposition (a service's GET /metrics) over the series whose
 * labels include `labels` (every series when none are given): what a test, bench or script reads off /metrics.
 */
export function sumSamples(exposition: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  let sum = 0;
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const series = line.slice(name.length, line.lastIndexOf(' '));
    if (wanted.every((label) => series.includes(label))) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
