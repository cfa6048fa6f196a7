// Original file: proto/reward.proto


export interface Components {
  'format'?: (number | string);
  'correctness'?: (number | string);
  'token_budget'?: (number | string);
  'recursion_efficiency'?: (number | string);
}

export interface Components__Output {
  'format'?: (number);
  'correctness'?: (number);
  'token_budget'?: (number);
  'recursion_efficiency'?: (number);
}
