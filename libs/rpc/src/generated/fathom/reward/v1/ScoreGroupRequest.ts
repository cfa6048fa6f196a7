// Original file: proto/reward.proto

import type { TaskRef as _fathom_reward_v1_TaskRef, TaskRef__Output as _fathom_reward_v1_TaskRef__Output } from '../../../fathom/reward/v1/TaskRef';
import type { Trajectory as _fathom_reward_v1_Trajectory, Trajectory__Output as _fathom_reward_v1_Trajectory__Output } from '../../../fathom/reward/v1/Trajectory';

export interface ScoreGroupRequest {
  'task'?: (_fathom_reward_v1_TaskRef | null);
  'trajectories'?: (_fathom_reward_v1_Trajectory)[];
  /**
   * A RewardConfig as JSON (libs/contracts reward.ts); empty for FATHOM's defaults (reward v3).
   */
  'reward_config_json'?: (string);
}

export interface ScoreGroupRequest__Output {
  'task'?: (_fathom_reward_v1_TaskRef__Output);
  'trajectories'?: (_fathom_reward_v1_Trajectory__Output)[];
  /**
   * A RewardConfig as JSON (libs/contracts reward.ts); empty for FATHOM's defaults (reward v3).
   */
  'reward_config_json'?: (string);
}
