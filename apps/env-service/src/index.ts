/** @fathom/env-service — the OpenEnv-compatible environment service (HTTP, WebSocket, MCP, gRPC). */
export { startEnvService, type RunningEnvService, type StartOptions } from './bootstrap';
export { ConfigError, EnvServiceConfigSchema, loadConfig, type EnvServiceConfig } from './config';
export { EnvError, grpcStatusOf, httpStatusOf, jsonRpcCodeOf, wsCodeOf } from './errors';
export { ScriptedInferenceServer } from './test-support/scripted-inference.server';
export { mib, processTreeRss, type ProcessTreeRss } from './test-support/process-memory';
