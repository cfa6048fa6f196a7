export {
  createMetricsRegistry,
  LATENCY_BUCKETS_S,
  counter,
  declareMetrics,
  gauge,
  histogram,
  METRIC_PREFIX,
  metricsClass,
  sumSamples,
  type DeclaredMetrics,
  type MetricDeclaration,
  type MetricsRegistryOptions,
  type MetricTable,
} from './metrics';
export { createLogger, LOG_LEVELS, Logger, type LogFields, type LoggerOptions, type LogLevel } from './logger';
export { NestJsonLogger } from './nest-logger';
