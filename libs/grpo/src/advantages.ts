import { meanStd, ZERO_STD_EPSILON } from '@fathom/contracts';

/** Group statistics of one prompt's rewards and the group-relative advantage of each completion. */
export interface GroupAdvantages {
  advantages: number[];
  mean: number;
  /** Sample standard deviation (`meanStd` of @fathom/contracts). */
  std: number;
  /** True when every reward in the group is equal: the group carries no learning signal. */
  zeroStd: boolean;
}

/**
 * Group-relative advantages. With scale "group": A_i = (r_i - mean) / (std + eps); with "none" (Dr. GRPO):
 * A_i = r_i - mean. A zero-std group gets all-zero advantages either way. With `negative` "drop", an advantage below 0
 * becomes 0 (`GrpoConfig.negativeAdvantages`).
 */
export function groupAdvantages(
  rewards: readonly number[],
  scale: 'group' | 'none',
  eps: number,
  negative: 'keep' | 'drop' = 'keep',
): GroupAdvantages {
  if (rewards.length < 2) throw new Error(`a GRPO group needs at least 2 rewards, got ${rewards.length}`);
  for (const [i, r] of rewards.entries()) {
    if (!Number.isFinite(r)) throw new Error(`reward ${i} of the group is not a finite number: ${r}`);
  }
  const { mean, std } = meanStd(rewards);
  // Rewards closer than this are treated as equal, so float noise never makes a flat group look trainable.
  const zeroStd = std < ZERO_STD_EPSILON;
  const advantages = rewards.map((r) => {
    if (zeroStd) return 0;
    const advantage = scale === 'group' ? (r - mean) / (std + eps) : r - mean;
    return negative === 'drop' ? Math.max(0, advantage) : advantage;
  });
  return { advantages, mean, std, zeroStd };
}
