import { RewardConfigSchema, type RewardConfig, type RewardConfigInput } from '@fathom/contracts';
import { z } from 'zod';
import { RewardError } from './errors';
import { rewardComponent } from './registry';

/** FATHOM's reward v3: `RewardConfigSchema.parse({})`. */
export const DEFAULT_REWARD_CONFIG: RewardConfig = Object.freeze(RewardConfigSchema.parse({}));

/** Parsed configs by input object, so scoring a group or a stream with one config validates it once. */
const resolved = new WeakMap<object, RewardConfig>();

/**
 * Validate a reward config (partial input; defaults fill the rest). Throws `RewardError` INVALID_CONFIG naming
 * every bad field, e.g. "reward weights must sum to 1, got correctness 0.8 + …", or a component in `weights` that
 * is not registered. `undefined` is the default config.
 */
export function resolveRewardConfig(input?: RewardConfigInput): RewardConfig {
  if (input === undefined) return DEFAULT_REWARD_CONFIG;
  let config = resolved.get(input);
  if (config === undefined) {
    const parsed = RewardConfigSchema.safeParse(input);
    if (!parsed.success) throw new RewardError('INVALID_CONFIG', z.prettifyError(parsed.error));
    config = parsed.data;
    for (const name of Object.keys(config.weights)) rewardComponent(name);
    resolved.set(input, config);
  }
  return config;
}
