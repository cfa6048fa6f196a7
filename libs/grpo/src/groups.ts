import { groupAdvantages, type GroupAdvantages } from './advantages';
import type { GrpoConfig } from './config';

/** A scored group as the learner receives it: one prompt, G completions, the policy version that sampled them. */
export interface ScoredGroup {
  groupId: string;
  policyVersion: number;
  rewards: number[];
}

export type SkipReason = 'zero_std' | 'stale';

/**
 * Which groups a step trains on and why the others were skipped: the one shape of a selection, whose trainable
 * entries and skip reasons each stage of the step names (`GroupSelection` here, the learner's `StepSelection`).
 */
export interface Selection<Trainable, Reason extends string> {
  submitted: number;
  trainable: Trainable[];
  skipped: { groupId: string; reason: Reason; detail: string }[];
  /** Policy versions behind the learner (0 = on-policy) → number of groups used. */
  stalenessHistogram: Record<number, number>;
  /** Fraction of the groups that reached scoring whose rewards all equal (TRL's frac_reward_zero_std). */
  fracRewardZeroStd: number;
}

export type GroupSelection<G extends ScoredGroup> = Selection<
  { group: G; stats: GroupAdvantages; staleness: number },
  SkipReason
>;

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
    const stats = groupAdvantages(group.rewards, config.scaleRewards, config.advantageEps, config.negativeAdvantages);
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
