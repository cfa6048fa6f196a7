// Original file: proto/policy.proto


export interface LatestRequest {
  'run_id'?: (string);
}

export interface LatestRequest__Output {
  'run_id'?: (string);
}
