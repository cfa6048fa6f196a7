import { groupId, type RewardConfig, type StepGroup, type Task } from '@fathom/contracts';
import { scoreTrajectory } from '@fathom/rewards';
import { episodeTaskOf, toRewardTrajectory, type EpisodeRunner } from '@fathom/rlm';
import { streamSeed } from '../sampler';

/** The sampling seed of group `index` of `step`: depends on nothing else, so a resumed step samples the same. */
export function groupSeed(seed: number, step: number, index: number): number {
  return streamSeed(streamSeed(seed, step), index);
}

export interface CollectedStep {
  groups: StepGroup[];
  /** Wall time of the episodes (sampling, sandbox, sub-calls), ms. */
  generationMs: number;
  /** Wall time of the reward functions, ms. */
  scoringMs: number;
}

/**
 * Rolls out one group of G episodes per task with `runner` (whose policy holds `claimedVersion`'s weights), all
 * groups decoding together, and scores every scorable trajectory with `@fathom/rewards`. Samples whose infra-error
 * retries ran out stay in `excluded`, unscored.
 */
export async function collectGroups(
  runner: EpisodeRunner,
  tasks: readonly Task[],
  spec: { step: number; seed: number; G: number; claimedVersion: number; reward: RewardConfig },
  clock: () => number,
): Promise<CollectedStep> {
  const started = clock();
  const rollouts = await runner.runGroups(
    tasks.map((task, index) => ({ task: episodeTaskOf(task), seed: groupSeed(spec.seed, spec.step, index) })),
    spec.G,
  );
  const scoredAt = clock();
  const groups: StepGroup[] = rollouts.map((rollout, index) => {
    const task = tasks[index];
    const results = rollout.trajectories.map((t) => scoreTrajectory(toRewardTrajectory(t), task, spec.reward));
    return {
      groupId: groupId(spec.step, index),
      taskId: task.id,
      claimedVersion: spec.claimedVersion,
      trajectories: rollout.trajectories,
      rewards: results.map((r) => r.total),
      results,
      excluded: rollout.excluded,
      infraFailures: rollout.infraFailures,
    };
  });
  return { groups, generationMs: scoredAt - started, scoringMs: clock() - scoredAt };
}
