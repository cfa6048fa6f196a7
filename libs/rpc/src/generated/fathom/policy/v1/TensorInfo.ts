// Original file: proto/policy.proto

import type { Long } from '@grpc/proto-loader';

export interface TensorInfo {
  /**
   * The parameter's name as in model.safetensors (e.g. "model.layers.0.self_attn.q_proj.weight").
   */
  'name'?: (string);
  /**
   * safetensors dtype name: "F32", "F16", "BF16".
   */
  'dtype'?: (string);
  'shape'?: (number | string | Long)[];
  /**
   * Offset of the tensor's first byte in the concatenated data, and its length.
   */
  'byte_offset'?: (number | string | Long);
  'byte_length'?: (number | string | Long);
}

export interface TensorInfo__Output {
  /**
   * The parameter's name as in model.safetensors (e.g. "model.layers.0.self_attn.q_proj.weight").
   */
  'name'?: (string);
  /**
   * safetensors dtype name: "F32", "F16", "BF16".
   */
  'dtype'?: (string);
  'shape'?: (number)[];
  /**
   * Offset of the tensor's first byte in the concatenated data, and its length.
   */
  'byte_offset'?: (number);
  'byte_length'?: (number);
}
