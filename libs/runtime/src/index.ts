/**
 * @fathom/runtime — process plumbing the worker services share: environment config validated once at boot, the
 * operations endpoints every service serves the same way (`OpsModule`: /health, /metrics), and graceful shutdown on SIGTERM.
 */
export {
  ConfigError,
  envInt,
  grpcEnvShape,
  HostPortSchema,
  loadEnvConfig,
  onnxEnvShape,
  PortSchema,
  PostgresUrlSchema,
  QueuePrefixSchema,
  RedisUrlSchema,
  runtimeConfigOf,
  serviceEnvShape,
  TokenSchema,
} from './env-config';
export {
  dependencyChecks,
  HealthChecks,
  OpsController,
  OpsModule,
  type HealthCheck,
  type OpsOptions,
} from './ops.module';
export { onParentGone, onTerminationSignal, runServiceMain } from './shutdown';
export { freePort, launchService, type LaunchOptions, type ServiceProcess } from './service.process';
export { createServiceInfra, type ServiceInfra } from './service.infra';
export {
  startWorkerService,
  WorkerLifecycle,
  WorkerServiceModule,
  type WorkerParts,
  type WorkerService,
  type WorkerServiceConfig,
  type WorkerServiceSpec,
} from './worker.service';
export { EndedRuns, type EndedRunsOptions } from './ended-runs';
export { onBodyParserError, useJsonBodyParser, type BodyParserFailure } from './body-parser';
export {
  checkBearerToken,
  checkHost,
  checkOrigin,
  HostNameListSchema,
  isLoopbackHost,
  OriginListSchema,
} from './http-guards';
