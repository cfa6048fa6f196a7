// Original file: proto/reward.proto

import type { Components as _fathom_reward_v1_Components, Components__Output as _fathom_reward_v1_Components__Output } from '../../../fathom/reward/v1/Components';
import type { Diagnostics as _fathom_reward_v1_Diagnostics, Diagnostics__Output as _fathom_reward_v1_Diagnostics__Output } from '../../../fathom/reward/v1/Diagnostics';

export interface RewardResult {
  'total'?: (number | string);
  'components'?: (_fathom_reward_v1_Components | null);
  'diagnostics'?: (_fathom_reward_v1_Diagnostics | null);
}

export interface RewardResult__Output {
  'total'?: (number);
  'components'?: (_fathom_reward_v1_Components__Output);
  'diagnostics'?: (_fathom_reward_v1_Diagnostics__Output);
}
