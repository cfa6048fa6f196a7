// Original file: proto/env.proto

import type { Observation as _fathom_env_v1_Observation, Observation__Output as _fathom_env_v1_Observation__Output } from '../../../fathom/env/v1/Observation';

export interface StepReply {
  'observation'?: (_fathom_env_v1_Observation | null);
  'reward'?: (number | string);
  'done'?: (boolean);
  '_reward'?: "reward";
}

export interface StepReply__Output {
  'observation'?: (_fathom_env_v1_Observation__Output);
  'reward'?: (number);
  'done'?: (boolean);
  '_reward'?: "reward";
}
