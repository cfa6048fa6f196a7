import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { GetWeightsRequest as _fathom_policy_v1_GetWeightsRequest, GetWeightsRequest__Output as _fathom_policy_v1_GetWeightsRequest__Output } from './fathom/policy/v1/GetWeightsRequest';
import type { LatestRequest as _fathom_policy_v1_LatestRequest, LatestRequest__Output as _fathom_policy_v1_LatestRequest__Output } from './fathom/policy/v1/LatestRequest';
import type { PolicyClient as _fathom_policy_v1_PolicyClient, PolicyDefinition as _fathom_policy_v1_PolicyDefinition } from './fathom/policy/v1/Policy';
import type { PolicyVersionInfo as _fathom_policy_v1_PolicyVersionInfo, PolicyVersionInfo__Output as _fathom_policy_v1_PolicyVersionInfo__Output } from './fathom/policy/v1/PolicyVersionInfo';
import type { TensorInfo as _fathom_policy_v1_TensorInfo, TensorInfo__Output as _fathom_policy_v1_TensorInfo__Output } from './fathom/policy/v1/TensorInfo';
import type { WeightsChunk as _fathom_policy_v1_WeightsChunk, WeightsChunk__Output as _fathom_policy_v1_WeightsChunk__Output } from './fathom/policy/v1/WeightsChunk';
import type { WeightsHeader as _fathom_policy_v1_WeightsHeader, WeightsHeader__Output as _fathom_policy_v1_WeightsHeader__Output } from './fathom/policy/v1/WeightsHeader';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fathom: {
    policy: {
      v1: {
        GetWeightsRequest: MessageTypeDefinition<_fathom_policy_v1_GetWeightsRequest, _fathom_policy_v1_GetWeightsRequest__Output>
        LatestRequest: MessageTypeDefinition<_fathom_policy_v1_LatestRequest, _fathom_policy_v1_LatestRequest__Output>
        Policy: SubtypeConstructor<typeof grpc.Client, _fathom_policy_v1_PolicyClient> & { service: _fathom_policy_v1_PolicyDefinition }
        PolicyVersionInfo: MessageTypeDefinition<_fathom_policy_v1_PolicyVersionInfo, _fathom_policy_v1_PolicyVersionInfo__Output>
        TensorInfo: MessageTypeDefinition<_fathom_policy_v1_TensorInfo, _fathom_policy_v1_TensorInfo__Output>
        WeightsChunk: MessageTypeDefinition<_fathom_policy_v1_WeightsChunk, _fathom_policy_v1_WeightsChunk__Output>
        WeightsHeader: MessageTypeDefinition<_fathom_policy_v1_WeightsHeader, _fathom_policy_v1_WeightsHeader__Output>
      }
    }
  }
}

