/**
 * @fathom/runtime — process plumbing the worker services share: environment config validated once at boot, the
 * operations HTTP endpoint (/health, /metrics), and graceful shutdown on SIGTERM.
 */
export {
  ConfigError,
  envInt,
  HostPortSchema,
  loadEnvConfig,
  onnxEnvShape,
  PortSchema,
  PostgresUrlSchema,
  QueuePrefixSchema,
  RedisUrlSchema,
  runtimeConfigOf,
  serviceEnvShape,
} from './env-config';
export { runHealthChecks, startOpsServer, type HealthCheck, type OpsServer, type OpsServerOptions } from './ops.server';
export { onParentGone, onTerminationSignal, runServiceMain } from './shutdown';
export { freePort, launchService, type LaunchOptions, type ServiceProcess } from './service.process';
export { createServiceInfra, type ServiceInfra } from './service.infra';
export { EndedRuns, type EndedRunsOptions } from './ended-runs';
export { onBodyParserError, type BodyParserFailure } from './body-parser';
