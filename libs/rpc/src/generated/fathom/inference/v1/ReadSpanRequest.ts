// Original file: proto/inference.proto

import type { Long } from '@grpc/proto-loader';

export interface ReadSpanRequest {
  'question'?: (string);
  'chunk'?: (string);
  /**
   * 0 = the best span; otherwise a start, then an end, drawn at this temperature.
   */
  'temperature'?: (number | string);
  'seed'?: (number | string | Long);
  /**
   * Which episode and recursion depth the call comes from, for tracing and per-episode accounting.
   */
  'episode_id'?: (string);
  'depth'?: (number);
  'request_id'?: (string);
  '_seed'?: "seed";
}

export interface ReadSpanRequest__Output {
  'question'?: (string);
  'chunk'?: (string);
  /**
   * 0 = the best span; otherwise a start, then an end, drawn at this temperature.
   */
  'temperature'?: (number);
  'seed'?: (number);
  /**
   * Which episode and recursion depth the call comes from, for tracing and per-episode accounting.
   */
  'episode_id'?: (string);
  'depth'?: (number);
  'request_id'?: (string);
  '_seed'?: "seed";
}
