import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { GenerateReply as _fathom_inference_v1_GenerateReply, GenerateReply__Output as _fathom_inference_v1_GenerateReply__Output } from './fathom/inference/v1/GenerateReply';
import type { GenerateRequest as _fathom_inference_v1_GenerateRequest, GenerateRequest__Output as _fathom_inference_v1_GenerateRequest__Output } from './fathom/inference/v1/GenerateRequest';
import type { InferenceClient as _fathom_inference_v1_InferenceClient, InferenceDefinition as _fathom_inference_v1_InferenceDefinition } from './fathom/inference/v1/Inference';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fathom: {
    inference: {
      v1: {
        GenerateReply: MessageTypeDefinition<_fathom_inference_v1_GenerateReply, _fathom_inference_v1_GenerateReply__Output>
        GenerateRequest: MessageTypeDefinition<_fathom_inference_v1_GenerateRequest, _fathom_inference_v1_GenerateRequest__Output>
        Inference: SubtypeConstructor<typeof grpc.Client, _fathom_inference_v1_InferenceClient> & { service: _fathom_inference_v1_InferenceDefinition }
      }
    }
  }
}

