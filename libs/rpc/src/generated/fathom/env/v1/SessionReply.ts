// Original file: proto/env.proto

import type { StepReply as _fathom_env_v1_StepReply, StepReply__Output as _fathom_env_v1_StepReply__Output } from '../../../fathom/env/v1/StepReply';
import type { EnvState as _fathom_env_v1_EnvState, EnvState__Output as _fathom_env_v1_EnvState__Output } from '../../../fathom/env/v1/EnvState';
import type { SessionError as _fathom_env_v1_SessionError, SessionError__Output as _fathom_env_v1_SessionError__Output } from '../../../fathom/env/v1/SessionError';

export interface SessionReply {
  'observation'?: (_fathom_env_v1_StepReply | null);
  'state'?: (_fathom_env_v1_EnvState | null);
  'error'?: (_fathom_env_v1_SessionError | null);
  'message'?: "observation"|"state"|"error";
}

export interface SessionReply__Output {
  'observation'?: (_fathom_env_v1_StepReply__Output);
  'state'?: (_fathom_env_v1_EnvState__Output);
  'error'?: (_fathom_env_v1_SessionError__Output);
  'message'?: "observation"|"state"|"error";
}
