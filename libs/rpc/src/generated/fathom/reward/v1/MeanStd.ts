// Original file: proto/reward.proto


export interface MeanStd {
  'mean'?: (number | string);
  'std'?: (number | string);
}

export interface MeanStd__Output {
  'mean'?: (number);
  'std'?: (number);
}
