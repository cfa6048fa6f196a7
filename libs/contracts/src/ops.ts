import { z } from 'zod';
import type { ApiOperation } from './openapi';

/**
 * `GET /health` of every FATHOM service: each dependency it checks, by name, "ok" or why it did not answer. A service
 * with nothing to check answers `{status: "healthy"}` alone: OpenEnv's HealthResponse, which forbids other keys.
 */
export const HealthReportSchema = z.strictObject({
  status: z.enum(['healthy', 'unhealthy']).describe('"unhealthy" (with 503) when any check did not answer "ok"'),
  checks: z
    .record(z.string(), z.string())
    .optional()
    .describe('Each dependency the service checks (postgres, redis, ...): "ok", or why it failed'),
});
export type HealthReport = z.infer<typeof HealthReportSchema>;

/** The operations every service serves the same way (`OpsModule`, libs/runtime), for its OpenAPI document. */
export const OPS_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/health',
    summary: 'Liveness, and whether each dependency the service needs answers',
    public: true,
    responses: {
      200: { description: 'Every check answered', schema: HealthReportSchema },
      503: { description: 'A check failed or timed out', schema: HealthReportSchema },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics',
    public: true,
    responses: { 200: { description: 'Text exposition format', schema: z.string(), contentType: 'text/plain' } },
  },
];
