// Original file: proto/env.proto


export interface StepRequest {
  'episode_id'?: (string);
  'code'?: (string);
  'answer'?: (string);
  'timeout_s'?: (number | string);
  'request_id'?: (string);
  'action'?: "code"|"answer";
  '_timeout_s'?: "timeout_s";
  '_request_id'?: "request_id";
}

export interface StepRequest__Output {
  'episode_id'?: (string);
  'code'?: (string);
  'answer'?: (string);
  'timeout_s'?: (number);
  'request_id'?: (string);
  'action'?: "code"|"answer";
  '_timeout_s'?: "timeout_s";
  '_request_id'?: "request_id";
}
