// Original file: proto/env.proto

import type { ResetRequest as _fathom_env_v1_ResetRequest, ResetRequest__Output as _fathom_env_v1_ResetRequest__Output } from '../../../fathom/env/v1/ResetRequest';
import type { StepRequest as _fathom_env_v1_StepRequest, StepRequest__Output as _fathom_env_v1_StepRequest__Output } from '../../../fathom/env/v1/StepRequest';
import type { SessionControl as _fathom_env_v1_SessionControl, SessionControl__Output as _fathom_env_v1_SessionControl__Output } from '../../../fathom/env/v1/SessionControl';
import type { LlmReply as _fathom_env_v1_LlmReply, LlmReply__Output as _fathom_env_v1_LlmReply__Output } from '../../../fathom/env/v1/LlmReply';

export interface SessionRequest {
  /**
   * Ends the session's episode, if any, and starts a new one.
   */
  'reset'?: (_fathom_env_v1_ResetRequest | null);
  /**
   * A step of the session's episode; episode_id may be left empty (else it must name that episode).
   */
  'step'?: (_fathom_env_v1_StepRequest | null);
  'state'?: (_fathom_env_v1_SessionControl | null);
  'close'?: (_fathom_env_v1_SessionControl | null);
  /**
   * The client's answer to an llm_request of the session's episode.
   */
  'llm_reply'?: (_fathom_env_v1_LlmReply | null);
  'message'?: "reset"|"step"|"state"|"close"|"llm_reply";
}

export interface SessionRequest__Output {
  /**
   * Ends the session's episode, if any, and starts a new one.
   */
  'reset'?: (_fathom_env_v1_ResetRequest__Output);
  /**
   * A step of the session's episode; episode_id may be left empty (else it must name that episode).
   */
  'step'?: (_fathom_env_v1_StepRequest__Output);
  'state'?: (_fathom_env_v1_SessionControl__Output);
  'close'?: (_fathom_env_v1_SessionControl__Output);
  /**
   * The client's answer to an llm_request of the session's episode.
   */
  'llm_reply'?: (_fathom_env_v1_LlmReply__Output);
  'message'?: "reset"|"step"|"state"|"close"|"llm_reply";
}
