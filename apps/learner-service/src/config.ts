import { PortSchema, envInt, loadEnvConfig, onnxEnvShape, serviceEnvShape } from '@fathom/runtime';
import { z } from 'zod';

/**
 * The learner-service's configuration, read once at boot from environment variables; defaults work on one
 * machine. The learner owns runs: it picks up runs created through the admin API, schedules their rollouts,
 * applies GRPO updates, writes checkpoints under RUNS_DIR and serves policy weights over gRPC.
 */
export const LearnerServiceConfigSchema = z.object({
  ...serviceEnvShape(9300),
  /** gRPC Policy (weights); 0 picks a free port. */
  GRPC_PORT: PortSchema.default(50061),
  /** Run folders (checkpoints, metrics.jsonl, rollouts) go to `${RUNS_DIR}/<runId>`, relative to the working directory. */
  RUNS_DIR: z.string().min(1).default('out/runs'),
  /** How often the learner looks for new, stopped or resumed runs. */
  POLL_INTERVAL_MS: envInt(10).default(1000),
  /** A step whose groups have not all arrived after this long fails the run (rollouts died for good). */
  STEP_TIMEOUT_S: envInt(1).default(3600),
  /** onnxruntime settings of the update graphs. */
  ...onnxEnvShape(),
});

export type LearnerServiceConfig = z.infer<typeof LearnerServiceConfigSchema>;

export function loadConfig(env: Record<string, string | undefined>): LearnerServiceConfig {
  return loadEnvConfig('learner-service', LearnerServiceConfigSchema, env);
}
