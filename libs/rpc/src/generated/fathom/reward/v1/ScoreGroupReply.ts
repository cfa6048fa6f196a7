// Original file: proto/reward.proto

import type { RewardResult as _fathom_reward_v1_RewardResult, RewardResult__Output as _fathom_reward_v1_RewardResult__Output } from '../../../fathom/reward/v1/RewardResult';
import type { MeanStd as _fathom_reward_v1_MeanStd, MeanStd__Output as _fathom_reward_v1_MeanStd__Output } from '../../../fathom/reward/v1/MeanStd';

export interface ScoreGroupReply {
  'results'?: (_fathom_reward_v1_RewardResult)[];
  'mean'?: (number | string);
  /**
   * Population standard deviation of the totals.
   */
  'std'?: (number | string);
  'min'?: (number | string);
  'max'?: (number | string);
  'format'?: (_fathom_reward_v1_MeanStd | null);
  'correctness'?: (_fathom_reward_v1_MeanStd | null);
  'token_budget'?: (_fathom_reward_v1_MeanStd | null);
  'recursion_efficiency'?: (_fathom_reward_v1_MeanStd | null);
  /**
   * True when every total is equal: the group carries no GRPO advantage.
   */
  'zero_std'?: (boolean);
}

export interface ScoreGroupReply__Output {
  'results'?: (_fathom_reward_v1_RewardResult__Output)[];
  'mean'?: (number);
  /**
   * Population standard deviation of the totals.
   */
  'std'?: (number);
  'min'?: (number);
  'max'?: (number);
  'format'?: (_fathom_reward_v1_MeanStd__Output);
  'correctness'?: (_fathom_reward_v1_MeanStd__Output);
  'token_budget'?: (_fathom_reward_v1_MeanStd__Output);
  'recursion_efficiency'?: (_fathom_reward_v1_MeanStd__Output);
  /**
   * True when every total is equal: the group carries no GRPO advantage.
   */
  'zero_std'?: (boolean);
}
