export { startAdminApi, type RunningAdminApi, type StartOptions } from './bootstrap';
export { AdminApiConfigSchema, loadConfig, ConfigError, type AdminApiConfig } from './config';
export { ADMIN_OPERATIONS, adminOpenApiDocument } from './http/openapi';
export { ADMIN_ERROR_CODES, httpStatusOf, type AdminErrorCode } from './errors';
export { DatabaseNotReadyError } from './ops/schema-check';
