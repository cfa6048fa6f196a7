import { LOG_LEVELS } from '@fathom/observability';
import { DEFAULT_DATABASE_URL } from '@fathom/persistence';
import {
  envInt,
  loadEnvConfig,
  PortSchema,
  PostgresUrlSchema,
  QueuePrefixSchema,
  RedisUrlSchema,
} from '@fathom/runtime';
import { z } from 'zod';

/**
 * The reward-service's configuration, read once at boot from environment variables; defaults work on one machine.
 * It takes `reward.group` jobs, scores them with libs/rewards, writes Episode rows and hands the scored group to
 * the `learn` queue; it also serves gRPC Reward.ScoreGroup.
 */
export const RewardServiceConfigSchema = z.object({
  HOST: z.string().min(1).default('0.0.0.0'),
  /** /health and /metrics; 0 picks a free port. */
  HTTP_PORT: PortSchema.default(9200),
  /** gRPC Reward; 0 picks a free port. */
  GRPC_PORT: PortSchema.default(50071),
  REDIS_URL: RedisUrlSchema.default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: QueuePrefixSchema.default('fathom'),
  DATABASE_URL: PostgresUrlSchema.default(DEFAULT_DATABASE_URL),
  /** reward.group jobs scored at once. */
  CONCURRENCY: envInt(1).default(4),
  DRAIN_TIMEOUT_MS: envInt(0).default(30_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

export type RewardServiceConfig = z.infer<typeof RewardServiceConfigSchema>;

export function loadConfig(env: Record<string, string | undefined>): RewardServiceConfig {
  return loadEnvConfig('reward-service', RewardServiceConfigSchema, env);
}
