// Original file: proto/env.proto


export interface StepError {
  'code'?: (string);
  'message'?: (string);
}

export interface StepError__Output {
  'code'?: (string);
  'message'?: (string);
}
