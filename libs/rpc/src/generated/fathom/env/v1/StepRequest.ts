// Original file: proto/env.proto


export interface StepRequest {
  'episode_id'?: (string);
  'code'?: (string);
  'answer'?: (string);
  'timeout_s'?: (number | string);
  'request_id'?: (string);
  /**
   * Tokens the client's model sampled for this turn; on every step, the reward counts them instead of estimating.
   */
  'completion_tokens'?: (number);
  'action'?: "code"|"answer";
  '_timeout_s'?: "timeout_s";
  '_request_id'?: "request_id";
  '_completion_tokens'?: "completion_tokens";
}

export interface StepRequest__Output {
  'episode_id'?: (string);
  'code'?: (string);
  'answer'?: (string);
  'timeout_s'?: (number);
  'request_id'?: (string);
  /**
   * Tokens the client's model sampled for this turn; on every step, the reward counts them instead of estimating.
   */
  'completion_tokens'?: (number);
  'action'?: "code"|"answer";
  '_timeout_s'?: "timeout_s";
  '_request_id'?: "request_id";
  '_completion_tokens'?: "completion_tokens";
}
