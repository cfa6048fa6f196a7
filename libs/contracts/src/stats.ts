import type { MeanStd } from './reward';

/** Below this a group's reward std counts as zero: every reward is equal and the group carries no GRPO advantage. */
export const ZERO_STD_EPSILON = 1e-9;

/**
 * Mean and sample standard deviation (n − 1 in the denominator, as torch.std and TRL use): the one std of FATHOM —
 * group advantages, a group's reward statistics and the step metrics all use it. Fewer than two values have std 0;
 * no values have mean 0.
 */
export function meanStd(values: readonly number[]): MeanStd {
  if (values.length === 0) return { mean: 0, std: 0 };
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  if (values.length < 2) return { mean, std: 0 };
  const squares = values.reduce((a, v) => a + (v - mean) * (v - mean), 0);
  return { mean, std: Math.sqrt(squares / (values.length - 1)) };
}

/** The middle value, or the mean of the two middle values of an even count; 0 for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
