import type { StepGroup } from '@fathom/contracts';
import type { GrpoConfig } from './config';
import { selectGroups, type Selection, type SkipReason } from './groups';

/** Why a group was not trained on: the learner's own checks, then `@fathom/grpo`'s. */
export type StepSkipReason = 'version_mismatch' | 'too_few_samples' | SkipReason;
export const STEP_SKIP_REASONS: readonly StepSkipReason[] = [
  'version_mismatch',
  'too_few_samples',
  'stale',
  'zero_std',
];

export interface TrainableGroup {
  group: StepGroup;
  /** One advantage per trajectory (root episode), in `group.trajectories` order. */
  advantages: number[];
  staleness: number;
}

/** A step's selection; the groups that reach scoring are those whose version agreed with `minOkSamples` samples. */
export type StepSelection = Selection<TrainableGroup, StepSkipReason>;

/**
 * Decides which groups a step trains on, each skip with its reason: a group whose trajectories report another
 * policy version than the group claims is rejected (`version_mismatch`: the sampler did not load the weights it
 * says it did); a group left with fewer than `minOkSamples` scorable samples after infra errors is skipped
 * (`too_few_samples`); then `@fathom/grpo` skips groups older than `maxStaleness` (`stale`) and, with dynamic
 * sampling, groups with equal rewards (`zero_std`).
 */
export function selectStepGroups(
  groups: readonly StepGroup[],
  learnerVersion: number,
  config: GrpoConfig,
  minOkSamples: number,
): StepSelection {
  const skipped: StepSelection['skipped'] = [];
  const scored: StepGroup[] = [];
  for (const group of groups) {
    const wrong = group.trajectories.find((t) => t.policyVersion !== group.claimedVersion);
    if (wrong !== undefined) {
      skipped.push({
        groupId: group.groupId,
        reason: 'version_mismatch',
        detail: `sample ${wrong.sampleIndex} reports policy version ${wrong.policyVersion}, the group claims ${group.claimedVersion}`,
      });
    } else if (group.trajectories.length < minOkSamples) {
      skipped.push({
        groupId: group.groupId,
        reason: 'too_few_samples',
        detail: `${group.trajectories.length} scorable samples (${group.excluded.length} excluded after infra errors), minOkSamples ${minOkSamples}`,
      });
    } else {
      scored.push(group);
    }
  }
  const byId = new Map(scored.map((g) => [g.groupId, g]));
  const selection = selectGroups(
    scored.map((g) => ({ groupId: g.groupId, policyVersion: g.claimedVersion, rewards: g.rewards })),
    learnerVersion,
    config,
  );
  for (const s of selection.skipped) skipped.push(s);
  return {
    submitted: groups.length,
    trainable: selection.trainable.map(({ group, stats, staleness }) => ({
      group: byId.get(group.groupId)!,
      advantages: stats.advantages,
      staleness,
    })),
    skipped,
    stalenessHistogram: selection.stalenessHistogram,
    fracRewardZeroStd: selection.fracRewardZeroStd,
  };
}
