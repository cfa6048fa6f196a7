// @ts-check

/**
 * The reward component names of some episodes, sorted. An episode's `rewardComponents` maps each component the run's
 * reward config composed to its value; Postgres keeps no key order in it, so the pages order the names themselves.
 * @param {{ rewardComponents: Record<string, number> }[]} episodes
 * @returns {string[]}
 */
export function componentNames(episodes) {
  return [...new Set(episodes.flatMap((e) => Object.keys(e.rewardComponents)))].sort();
}
