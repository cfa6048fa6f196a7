// Original file: proto/inference.proto

import type { Long } from '@grpc/proto-loader';

export interface GenerateRequest {
  /**
   * The fully rendered prompt (rendered by libs/rlm, the one prompt renderer).
   */
  'prompt'?: (string);
  'max_tokens'?: (number);
  'temperature'?: (number | string);
  'stop'?: (string)[];
  'seed'?: (number | string | Long);
  /**
   * Which episode and recursion depth the call comes from, for tracing and per-episode accounting.
   */
  'episode_id'?: (string);
  'depth'?: (number);
  'request_id'?: (string);
  '_seed'?: "seed";
}

export interface GenerateRequest__Output {
  /**
   * The fully rendered prompt (rendered by libs/rlm, the one prompt renderer).
   */
  'prompt'?: (string);
  'max_tokens'?: (number);
  'temperature'?: (number);
  'stop'?: (string)[];
  'seed'?: (number);
  /**
   * Which episode and recursion depth the call comes from, for tracing and per-episode accounting.
   */
  'episode_id'?: (string);
  'depth'?: (number);
  'request_id'?: (string);
  '_seed'?: "seed";
}
