// Original file: proto/inference.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GenerateReply as _fathom_inference_v1_GenerateReply, GenerateReply__Output as _fathom_inference_v1_GenerateReply__Output } from '../../../fathom/inference/v1/GenerateReply';
import type { GenerateRequest as _fathom_inference_v1_GenerateRequest, GenerateRequest__Output as _fathom_inference_v1_GenerateRequest__Output } from '../../../fathom/inference/v1/GenerateRequest';

export interface InferenceClient extends grpc.Client {
  Generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  
}

export interface InferenceHandlers extends grpc.UntypedServiceImplementation {
  Generate: grpc.handleUnaryCall<_fathom_inference_v1_GenerateRequest__Output, _fathom_inference_v1_GenerateReply>;
  
}

export interface InferenceDefinition extends grpc.ServiceDefinition {
  Generate: MethodDefinition<_fathom_inference_v1_GenerateRequest, _fathom_inference_v1_GenerateReply, _fathom_inference_v1_GenerateRequest__Output, _fathom_inference_v1_GenerateReply__Output>
}
