// Original file: proto/policy.proto

import type { Long } from '@grpc/proto-loader';

export interface PolicyVersionInfo {
  'run_id'?: (string);
  'version'?: (number);
  /**
   * The learner step whose update produced this version (0 for the initial policy).
   */
  'step'?: (number);
  'checkpoint_path'?: (string);
  /**
   * Bytes of tensor data GetWeights streams for this version, and their SHA-256 (hex), to verify a transfer.
   */
  'total_bytes'?: (number | string | Long);
  'sha256'?: (string);
  '_checkpoint_path'?: "checkpoint_path";
}

export interface PolicyVersionInfo__Output {
  'run_id'?: (string);
  'version'?: (number);
  /**
   * The learner step whose update produced this version (0 for the initial policy).
   */
  'step'?: (number);
  'checkpoint_path'?: (string);
  /**
   * Bytes of tensor data GetWeights streams for this version, and their SHA-256 (hex), to verify a transfer.
   */
  'total_bytes'?: (number);
  'sha256'?: (string);
  '_checkpoint_path'?: "checkpoint_path";
}
