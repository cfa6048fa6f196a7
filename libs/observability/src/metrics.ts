import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type CounterConfiguration,
  type GaugeConfiguration,
  type HistogramConfiguration,
} from 'prom-client';

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

/** The prefix of every FATHOM metric name; `metricFactory` puts it in front of each name it is given. */
export const METRIC_PREFIX = 'fathom_';

/**
 * Declares metrics on one registry, each served as `fathom_<name>`: the env-service's `env_step_seconds` is
 * `fathom_env_step_seconds`. Label names type the labels a metric's `inc`, `set` and `observe` take.
 */
export interface MetricFactory {
  counter<L extends string = string>(
    name: string,
    help: string,
    options?: Pick<CounterConfiguration<L>, 'labelNames' | 'collect'>,
  ): Counter<L>;
  gauge<L extends string = string>(
    name: string,
    help: string,
    options?: Pick<GaugeConfiguration<L>, 'labelNames' | 'collect'>,
  ): Gauge<L>;
  /** Buckets default to `LATENCY_BUCKETS_S`. */
  histogram<L extends string = string>(
    name: string,
    help: string,
    options?: Pick<HistogramConfiguration<L>, 'labelNames' | 'buckets' | 'collect'>,
  ): Histogram<L>;
}

/** The one way a service or library declares its metrics: on `registry`, under `METRIC_PREFIX`. */
export function metricFactory(registry: Registry): MetricFactory {
  const named = (name: string, help: string) => ({ name: METRIC_PREFIX + name, help, registers: [registry] });
  return {
    counter: (name, help, options) => new Counter({ ...named(name, help), ...options }),
    gauge: (name, help, options) => new Gauge({ ...named(name, help), ...options }),
    histogram: (name, help, options) => new Histogram({ ...named(name, help), buckets: LATENCY_BUCKETS_S, ...options }),
  };
}

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
