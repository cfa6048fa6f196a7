import {
  meanStd,
  rewardComponentNames,
  ZERO_STD_EPSILON,
  type GroupReward,
  type RewardConfigInput,
  type RewardTrajectory,
} from '@fathom/contracts';
import type { RewardTask } from './components/correctness';
import { resolveRewardConfig } from './config';
import { RewardError } from './errors';
import { scoreTrajectory } from './score';

/**
 * Score a GRPO group: G trajectories of one task. Returns each reward (input order), each full result,
 * statistics of the totals (`meanStd`: the sample std), per-component mean/std, and `zeroStd`, which flags a
 * group whose rewards are all equal (std < 1e-9) and so teaches GRPO nothing.
 * Throws `RewardError` EMPTY_GROUP for no trajectories, and what `scoreTrajectory` throws.
 */
export function scoreGroup(
  trajectories: readonly RewardTrajectory[],
  task: RewardTask,
  config?: RewardConfigInput,
): GroupReward {
  if (trajectories.length === 0) {
    throw new RewardError('EMPTY_GROUP', `no trajectories for task "${task.question.slice(0, 80)}"`);
  }
  const cfg = resolveRewardConfig(config);
  const results = trajectories.map((trajectory) => scoreTrajectory(trajectory, task, cfg));
  const rewards = results.map((result) => result.total);
  const { mean, std } = meanStd(rewards);
  const perComponent = Object.fromEntries(
    rewardComponentNames(results).map((name) => [name, meanStd(results.map((r) => r.components[name]))]),
  );
  return {
    rewards,
    results,
    totals: { mean, std, min: Math.min(...rewards), max: Math.max(...rewards) },
    perComponent,
    zeroStd: std < ZERO_STD_EPSILON,
  };
}
