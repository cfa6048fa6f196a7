export {
  createMetricsRegistry,
  LATENCY_BUCKETS_S,
  METRIC_PREFIX,
  metricFactory,
  sumSamples,
  type MetricFactory,
  type MetricsRegistryOptions,
} from './metrics';
export { createLogger, LOG_LEVELS, Logger, type LogFields, type LoggerOptions, type LogLevel } from './logger';
export { NestJsonLogger } from './nest-logger';
