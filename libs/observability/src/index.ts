export { createMetricsRegistry, LATENCY_BUCKETS_S, type MetricsRegistryOptions } from './metrics';
export { createLogger, LOG_LEVELS, type LogFields, type Logger, type LoggerOptions, type LogLevel } from './logger';
export { NestJsonLogger } from './nest-logger';
