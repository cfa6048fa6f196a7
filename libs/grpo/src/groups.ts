import { groupAdvantages, type GroupAdvantages } from './advantages';
import type { GrpoConfig } from './config';

/** A scored group as the learner receives it: one prompt, G completions, the policy version that sampled them. */
export interface ScoredGroup {
  groupId: string;
  policyVersion: number;
  rewards: number[];
}

export type SkipReason = 'zero_std' | 'stale';

export interface GroupSelection<G extends ScoredGroup> {
  submitted: number;
  trainable: { group: G; stats: GroupAdvantages; staleness: number }[];
  skipped: { groupId: string; reason: SkipReason; detail: string }[];
  /** Policy versions behind the learner (0 = on-policy) → number of groups used. */
  stalenessHistogram: Record<number, number>;
  /** Fraction of submitted groups whose rewards all equal (TRL's frac_reward_zero_std). */
  fracRewardZeroStd: number;
}

/**
 * Decides which groups a step trains on: groups older than `maxStaleness` versions are skipped as stale,
 * and, with dynamic sampling, groups whose rewards all equal are skipped as zero_std. Every skip carries
 * its reason so a step can say why it learned what it learned. A group from a future policy version is a
 * bug upstream and throws.
 */
export function selectGroups<G extends ScoredGroup>(
  groups: readonly G[],
  learnerVersion: number,
  config: GrpoConfig,
): GroupSelection<G> {
  const selection: GroupSelection<G> = {
    submitted: groups.length,
    trainable: [],
    skipped: [],
    stalenessHistogram: {},
    fracRewardZeroStd: 0,
  };
  let zeroStd = 0;
  for (const group of groups) {
    const staleness = learnerVersion - group.policyVersion;
    if (staleness < 0) {
      throw new Error(
        `group ${group.groupId} claims policy version ${group.policyVersion}, newer than the learner's ${learnerVersion}`,
      );
    }
    const stats = groupAdvantages(group.rewards, config.scaleRewards, config.advantageEps);
    if (stats.zeroStd) zeroStd++;
    if (staleness > config.maxStaleness) {
      selection.skipped.push({
        groupId: group.groupId,
        reason: 'stale',
        detail: `sampled by version ${group.policyVersion}, ${staleness} behind (maxStaleness ${config.maxStaleness})`,
      });
    } else if (stats.zeroStd && config.dynamicSampling) {
      selection.skipped.push({
        groupId: group.groupId,
        reason: 'zero_std',
        detail: `all ${group.rewards.length} rewards equal ${stats.mean}`,
      });
    } else {
      selection.trainable.push({ group, stats, staleness });
      selection.stalenessHistogram[staleness] = (selection.stalenessHistogram[staleness] ?? 0) + 1;
    }
  }
  selection.fracRewardZeroStd = groups.length === 0 ? 0 : zeroStd / groups.length;
  return selection;
}
