// Original file: proto/env.proto

import type { StepReply as _fathom_env_v1_StepReply, StepReply__Output as _fathom_env_v1_StepReply__Output } from '../../../fathom/env/v1/StepReply';
import type { EnvState as _fathom_env_v1_EnvState, EnvState__Output as _fathom_env_v1_EnvState__Output } from '../../../fathom/env/v1/EnvState';
import type { SessionError as _fathom_env_v1_SessionError, SessionError__Output as _fathom_env_v1_SessionError__Output } from '../../../fathom/env/v1/SessionError';
import type { LlmCall as _fathom_env_v1_LlmCall, LlmCall__Output as _fathom_env_v1_LlmCall__Output } from '../../../fathom/env/v1/LlmCall';

export interface SessionReply {
  'observation'?: (_fathom_env_v1_StepReply | null);
  'state'?: (_fathom_env_v1_EnvState | null);
  'error'?: (_fathom_env_v1_SessionError | null);
  /**
   * An llm() call of the session's episode (it was reset with serve_llm); answer it with an llm_reply.
   */
  'llm_request'?: (_fathom_env_v1_LlmCall | null);
  'message'?: "observation"|"state"|"error"|"llm_request";
}

export interface SessionReply__Output {
  'observation'?: (_fathom_env_v1_StepReply__Output);
  'state'?: (_fathom_env_v1_EnvState__Output);
  'error'?: (_fathom_env_v1_SessionError__Output);
  /**
   * An llm() call of the session's episode (it was reset with serve_llm); answer it with an llm_reply.
   */
  'llm_request'?: (_fathom_env_v1_LlmCall__Output);
  'message'?: "observation"|"state"|"error"|"llm_request";
}
