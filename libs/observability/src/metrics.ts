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

/** The prefix of every FATHOM metric name; a metric declaration puts it in front of the name it is given. */
export const METRIC_PREFIX = 'fathom_';

/**
 * One row of a metrics table: a metric, declared on a registry when the table is. `counter`, `gauge` and
 * `histogram` build them; the name given is served as `fathom_<name>`, and label names type the labels the
 * metric's `inc`, `set` and `observe` take.
 */
export type MetricDeclaration<M> = (registry: Registry) => M;

/** A service's metrics as data: the field name of each metric, and its declaration. */
export type MetricTable = Record<string, MetricDeclaration<unknown>>;

/** The metrics a table declares, each under its row's key. */
export type DeclaredMetrics<T extends MetricTable> = { readonly [K in keyof T]: ReturnType<T[K]> };

const named = (registry: Registry, name: string, help: string) => ({
  name: METRIC_PREFIX + name,
  help,
  registers: [registry],
});

export function counter<L extends string = string>(
  name: string,
  help: string,
  options?: Pick<CounterConfiguration<L>, 'labelNames' | 'collect'>,
): MetricDeclaration<Counter<L>> {
  return (registry) => new Counter({ ...named(registry, name, help), ...options });
}

export function gauge<L extends string = string>(
  name: string,
  help: string,
  options?: Pick<GaugeConfiguration<L>, 'labelNames' | 'collect'>,
): MetricDeclaration<Gauge<L>> {
  return (registry) => new Gauge({ ...named(registry, name, help), ...options });
}

/** Buckets default to `LATENCY_BUCKETS_S`. */
export function histogram<L extends string = string>(
  name: string,
  help: string,
  options?: Pick<HistogramConfiguration<L>, 'labelNames' | 'buckets' | 'collect'>,
): MetricDeclaration<Histogram<L>> {
  return (registry) => new Histogram({ ...named(registry, name, help), buckets: LATENCY_BUCKETS_S, ...options });
}

/** Declares each row of `table` on `registry`, under `METRIC_PREFIX`; a metrics class does it through `metricsClass`. */
export function declareMetrics<T extends MetricTable>(registry: Registry, table: T): DeclaredMetrics<T> {
  return Object.fromEntries(
    Object.entries(table).map(([key, declare]) => [key, declare(registry)]),
  ) as DeclaredMetrics<T>;
}

/**
 * The base of a metrics class: `new (registry, ...args)` declares `table(...args)` on `registry` and holds each
 * metric as a readonly field named by its row, beside `registry`. The table is a function of the constructor's
 * further arguments so that collect hooks can read what they report (a transport, a pool).
 */
export function metricsClass<A extends unknown[], T extends MetricTable>(table: (...args: A) => T) {
  return class {
    readonly registry: Registry;

    constructor(registry: Registry, ...args: A) {
      this.registry = registry;
      Object.assign(this, declareMetrics(registry, table(...args)));
    }
  } as new (registry: Registry, ...args: A) => { readonly registry: Registry } & DeclaredMetrics<T>;
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
