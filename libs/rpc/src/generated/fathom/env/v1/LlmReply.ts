// Original file: proto/env.proto

import type { LlmAnswer as _fathom_env_v1_LlmAnswer, LlmAnswer__Output as _fathom_env_v1_LlmAnswer__Output } from '../../../fathom/env/v1/LlmAnswer';

export interface LlmReply {
  'request_id'?: (string);
  'reply'?: (_fathom_env_v1_LlmAnswer | null);
  /**
   * The client could not answer; the guest's llm() fails with this message.
   */
  'error'?: (string);
  'result'?: "reply"|"error";
}

export interface LlmReply__Output {
  'request_id'?: (string);
  'reply'?: (_fathom_env_v1_LlmAnswer__Output);
  /**
   * The client could not answer; the guest's llm() fails with this message.
   */
  'error'?: (string);
  'result'?: "reply"|"error";
}
