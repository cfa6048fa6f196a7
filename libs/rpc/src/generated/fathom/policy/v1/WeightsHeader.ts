// Original file: proto/policy.proto

import type { PolicyVersionInfo as _fathom_policy_v1_PolicyVersionInfo, PolicyVersionInfo__Output as _fathom_policy_v1_PolicyVersionInfo__Output } from '../../../fathom/policy/v1/PolicyVersionInfo';
import type { TensorInfo as _fathom_policy_v1_TensorInfo, TensorInfo__Output as _fathom_policy_v1_TensorInfo__Output } from '../../../fathom/policy/v1/TensorInfo';

export interface WeightsHeader {
  'version'?: (_fathom_policy_v1_PolicyVersionInfo | null);
  /**
   * The model's Hugging Face config.json, verbatim.
   */
  'config_json'?: (string);
  'tensors'?: (_fathom_policy_v1_TensorInfo)[];
  /**
   * LoRA adapters only (frozen base weights stay with the worker); false for full weights.
   */
  'adapters_only'?: (boolean);
}

export interface WeightsHeader__Output {
  'version'?: (_fathom_policy_v1_PolicyVersionInfo__Output);
  /**
   * The model's Hugging Face config.json, verbatim.
   */
  'config_json'?: (string);
  'tensors'?: (_fathom_policy_v1_TensorInfo__Output)[];
  /**
   * LoRA adapters only (frozen base weights stay with the worker); false for full weights.
   */
  'adapters_only'?: (boolean);
}
