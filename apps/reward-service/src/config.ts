import { envInt, loadEnvConfig, serviceEnvShape } from '@fathom/runtime';
import { z } from 'zod';

/**
 * The reward-service's configuration, read once at boot from environment variables; defaults work on one machine.
 * It takes `reward.group` jobs, scores them with libs/rewards, writes Episode rows and hands the scored group to
 * the `learn` queue.
 */
export const RewardServiceConfigSchema = z.object({
  ...serviceEnvShape(9200),
  /** reward.group jobs scored at once. */
  CONCURRENCY: envInt(1).default(4),
  DRAIN_TIMEOUT_MS: envInt(0).default(30_000),
});

export type RewardServiceConfig = z.infer<typeof RewardServiceConfigSchema>;

export function loadConfig(env: Record<string, string | undefined>): RewardServiceConfig {
  return loadEnvConfig('reward-service', RewardServiceConfigSchema, env);
}
