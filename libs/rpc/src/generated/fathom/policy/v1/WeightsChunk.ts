// Original file: proto/policy.proto

import type { WeightsHeader as _fathom_policy_v1_WeightsHeader, WeightsHeader__Output as _fathom_policy_v1_WeightsHeader__Output } from '../../../fathom/policy/v1/WeightsHeader';
import type { Long } from '@grpc/proto-loader';

export interface WeightsChunk {
  'header'?: (_fathom_policy_v1_WeightsHeader | null);
  'data'?: (Buffer | Uint8Array | string);
  /**
   * For data chunks: position of data's first byte in the concatenated tensor bytes.
   */
  'offset'?: (number | string | Long);
  'part'?: "header"|"data";
}

export interface WeightsChunk__Output {
  'header'?: (_fathom_policy_v1_WeightsHeader__Output);
  'data'?: (Buffer);
  /**
   * For data chunks: position of data's first byte in the concatenated tensor bytes.
   */
  'offset'?: (number);
  'part'?: "header"|"data";
}
