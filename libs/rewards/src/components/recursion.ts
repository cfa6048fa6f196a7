import type { RewardConfig } from '@fathom/contracts';

/**
 * Recursion efficiency before the "paid only when correct" rule: linear decay from 1 at 0 calls to 0 at
 * `zeroAtCalls` calls, max(0, 1 − calls / zeroAtCalls). With the default 4: 1, 0.75, 0.5, 0.25, 0, 0, …
 */
export function recursionEfficiency(llmCalls: number, config: RewardConfig['recursion']): number {
  return Math.max(0, 1 - llmCalls / config.zeroAtCalls);
}
