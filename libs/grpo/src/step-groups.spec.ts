import type { EpisodeTrajectory, StepGroup } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { grpoConfig } from './config';
import { selectStepGroups } from './step-groups';

const trajectory = (sampleIndex: number, policyVersion: number) =>
  ({ sampleIndex, policyVersion, status: 'ok' }) as EpisodeTrajectory;

function group(id: string, rewards: number[], claimedVersion: number, stamped = claimedVersion): StepGroup {
  return {
    groupId: id,
    taskId: id,
    claimedVersion,
    trajectories: rewards.map((_, i) => trajectory(i, stamped)),
    rewards,
    results: [],
    excluded: [],
    infraFailures: [],
  };
}

describe('selectStepGroups', () => {
  const config = grpoConfig({ groupSize: 4, maxStaleness: 1 });

  it('trains on a fresh group with differing rewards, with std-normalised advantages', () => {
    const s = selectStepGroups([group('a', [1, 0, 0, 1], 5)], 5, config, 2);
    expect(s.skipped).toEqual([]);
    expect(s.trainable).toHaveLength(1);
    const a = s.trainable[0].advantages;
    expect(a[0]).toBeCloseTo(0.5 / (Math.sqrt(1 / 3) + 1e-4), 6);
    expect(a[1]).toBeCloseTo(-a[0], 12);
    expect(s.stalenessHistogram).toEqual({ 0: 1 });
  });

  it('skips an all-equal group with reason zero_std and counts it in frac_reward_zero_std', () => {
    const s = selectStepGroups([group('flat', [0.2, 0.2, 0.2], 3), group('ok', [0, 1], 3)], 3, config, 2);
    expect(s.skipped).toEqual([{ groupId: 'flat', reason: 'zero_std', detail: expect.stringContaining('0.2') }]);
    expect(s.fracRewardZeroStd).toBe(0.5);
    expect(s.trainable.map((t) => t.group.groupId)).toEqual(['ok']);
  });

  it('rejects a group older than maxStaleness as stale, and histograms the staleness of the ones it keeps', () => {
    const s = selectStepGroups(
      [group('old', [0, 1], 3), group('lag', [1, 0], 4), group('now', [0, 1], 5)],
      5,
      config,
      2,
    );
    expect(s.skipped).toEqual([{ groupId: 'old', reason: 'stale', detail: expect.stringContaining('2 behind') }]);
    expect(s.stalenessHistogram).toEqual({ 0: 1, 1: 1 });
  });

  it('rejects a group whose trajectories report another weights version than the group claims', () => {
    const s = selectStepGroups([group('drift', [0, 1], 5, 4)], 5, config, 2);
    expect(s.trainable).toEqual([]);
    expect(s.skipped[0]).toMatchObject({
      reason: 'version_mismatch',
      detail: expect.stringMatching(/version 4.*claims 5/),
    });
  });

  it('skips a group left with too few scorable samples after infra errors', () => {
    const g = { ...group('thin', [1], 2), excluded: [{ ...trajectory(1, 2), status: 'infra_error' as const }] };
    const s = selectStepGroups([g], 2, config, 2);
    expect(s.skipped[0]).toMatchObject({ reason: 'too_few_samples', detail: expect.stringContaining('1 excluded') });
    expect(s.fracRewardZeroStd).toBe(0);
  });
});
