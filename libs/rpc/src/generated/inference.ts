import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { DescribeReply as _fathom_inference_v1_DescribeReply, DescribeReply__Output as _fathom_inference_v1_DescribeReply__Output } from './fathom/inference/v1/DescribeReply';
import type { DescribeRequest as _fathom_inference_v1_DescribeRequest, DescribeRequest__Output as _fathom_inference_v1_DescribeRequest__Output } from './fathom/inference/v1/DescribeRequest';
import type { GenerateReply as _fathom_inference_v1_GenerateReply, GenerateReply__Output as _fathom_inference_v1_GenerateReply__Output } from './fathom/inference/v1/GenerateReply';
import type { GenerateRequest as _fathom_inference_v1_GenerateRequest, GenerateRequest__Output as _fathom_inference_v1_GenerateRequest__Output } from './fathom/inference/v1/GenerateRequest';
import type { InferenceClient as _fathom_inference_v1_InferenceClient, InferenceDefinition as _fathom_inference_v1_InferenceDefinition } from './fathom/inference/v1/Inference';
import type { ReadSpanReply as _fathom_inference_v1_ReadSpanReply, ReadSpanReply__Output as _fathom_inference_v1_ReadSpanReply__Output } from './fathom/inference/v1/ReadSpanReply';
import type { ReadSpanRequest as _fathom_inference_v1_ReadSpanRequest, ReadSpanRequest__Output as _fathom_inference_v1_ReadSpanRequest__Output } from './fathom/inference/v1/ReadSpanRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fathom: {
    inference: {
      v1: {
        DescribeReply: MessageTypeDefinition<_fathom_inference_v1_DescribeReply, _fathom_inference_v1_DescribeReply__Output>
        DescribeRequest: MessageTypeDefinition<_fathom_inference_v1_DescribeRequest, _fathom_inference_v1_DescribeRequest__Output>
        GenerateReply: MessageTypeDefinition<_fathom_inference_v1_GenerateReply, _fathom_inference_v1_GenerateReply__Output>
        GenerateRequest: MessageTypeDefinition<_fathom_inference_v1_GenerateRequest, _fathom_inference_v1_GenerateRequest__Output>
        Inference: SubtypeConstructor<typeof grpc.Client, _fathom_inference_v1_InferenceClient> & { service: _fathom_inference_v1_InferenceDefinition }
        ReadSpanReply: MessageTypeDefinition<_fathom_inference_v1_ReadSpanReply, _fathom_inference_v1_ReadSpanReply__Output>
        ReadSpanRequest: MessageTypeDefinition<_fathom_inference_v1_ReadSpanRequest, _fathom_inference_v1_ReadSpanRequest__Output>
      }
    }
  }
}

