import { describe, expect, it } from 'vitest';
import { RewardError } from './errors';
import { meanStd } from '@fathom/contracts';
import { scoreGroup } from './group';
import { MIRROR_TASK, SEARCH_TURN, trajectory } from './trajectory.fixtures';

/** Eight plausible samples of one prompt: what a GRPO group of a half-trained policy looks like. */
const VARIED_GROUP = [
  trajectory('<answer>red</answer>', { earlier: [SEARCH_TURN], calls: 0, completionTokens: 180 }),
  trajectory('<answer>Red.</answer>', { earlier: [SEARCH_TURN], calls: 2, completionTokens: 400 }),
  trajectory('The mirror is red.\nred', { earlier: [SEARCH_TURN], calls: 0, completionTokens: 220 }),
  trajectory('<answer>blue</answer>', { earlier: [SEARCH_TURN], calls: 1, completionTokens: 260 }),
  trajectory('<answer></answer>', { calls: 0, completionTokens: 40 }),
  trajectory('I could not find it.', { earlier: [SEARCH_TURN, SEARCH_TURN], calls: 3, completionTokens: 900 }),
  trajectory('<answer>crimson</answer>', { earlier: [SEARCH_TURN], calls: 6, completionTokens: 2500 }),
  trajectory('<answer>red</answer><answer>blue</answer>', { calls: 0, completionTokens: 90 }),
];

describe('scoreGroup', () => {
  it('gives a varied group of 8 a reward std above 0.1', () => {
    const group = scoreGroup(VARIED_GROUP, MIRROR_TASK);
    expect(group.rewards).toHaveLength(8);
    expect(group.totals.std).toBeGreaterThan(0.1);
    expect(group.zeroStd).toBe(false);
    expect(group.rewards).toEqual(group.results.map((r) => r.total));
    expect(group.totals.min).toBe(Math.min(...group.rewards));
    expect(group.totals.max).toBe(Math.max(...group.rewards));
  });

  it('reports per-component mean and std', () => {
    const group = scoreGroup(VARIED_GROUP, MIRROR_TASK);
    expect(group.perComponent.correctness).toEqual(meanStd(group.results.map((r) => r.components.correctness)));
    expect(group.perComponent.correctness.mean).toBeCloseTo(4 / 8, 12);
    // The sample std (n − 1), the one GRPO's advantages use: four 1s and four 0s.
    expect(group.perComponent.correctness.std).toBeCloseTo(Math.sqrt(2 / 7), 12);
    expect(Object.keys(group.perComponent).sort()).toEqual(
      ['correctness', 'format', 'recursion_efficiency', 'token_budget'].sort(),
    );
  });

  it('flags an all-identical group with std 0', () => {
    const same = Array.from({ length: 8 }, () => trajectory('<answer>blue</answer>'));
    const group = scoreGroup(same, MIRROR_TASK);
    expect(group.totals.std).toBe(0);
    expect(group.zeroStd).toBe(true);
    expect(group.perComponent.format).toEqual({ mean: 1, std: 0 });
  });

  it('throws EMPTY_GROUP for no trajectories', () => {
    expect(() => scoreGroup([], MIRROR_TASK)).toThrow(RewardError);
    try {
      scoreGroup([], MIRROR_TASK);
    } catch (e) {
      expect((e as RewardError).code).toBe('EMPTY_GROUP');
    }
  });
});
