// Original file: proto/inference.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { DescribeReply as _fathom_inference_v1_DescribeReply, DescribeReply__Output as _fathom_inference_v1_DescribeReply__Output } from '../../../fathom/inference/v1/DescribeReply';
import type { DescribeRequest as _fathom_inference_v1_DescribeRequest, DescribeRequest__Output as _fathom_inference_v1_DescribeRequest__Output } from '../../../fathom/inference/v1/DescribeRequest';
import type { GenerateReply as _fathom_inference_v1_GenerateReply, GenerateReply__Output as _fathom_inference_v1_GenerateReply__Output } from '../../../fathom/inference/v1/GenerateReply';
import type { GenerateRequest as _fathom_inference_v1_GenerateRequest, GenerateRequest__Output as _fathom_inference_v1_GenerateRequest__Output } from '../../../fathom/inference/v1/GenerateRequest';
import type { ReadSpanReply as _fathom_inference_v1_ReadSpanReply, ReadSpanReply__Output as _fathom_inference_v1_ReadSpanReply__Output } from '../../../fathom/inference/v1/ReadSpanReply';
import type { ReadSpanRequest as _fathom_inference_v1_ReadSpanRequest, ReadSpanRequest__Output as _fathom_inference_v1_ReadSpanRequest__Output } from '../../../fathom/inference/v1/ReadSpanRequest';

export interface InferenceClient extends grpc.Client {
  /**
   * What the served checkpoint can do; loads it first (FAILED_PRECONDITION naming the folder when it cannot be).
   */
  Describe(argument: _fathom_inference_v1_DescribeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  Describe(argument: _fathom_inference_v1_DescribeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  Describe(argument: _fathom_inference_v1_DescribeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  Describe(argument: _fathom_inference_v1_DescribeRequest, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  /**
   * What the served checkpoint can do; loads it first (FAILED_PRECONDITION naming the folder when it cannot be).
   */
  describe(argument: _fathom_inference_v1_DescribeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  describe(argument: _fathom_inference_v1_DescribeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  describe(argument: _fathom_inference_v1_DescribeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  describe(argument: _fathom_inference_v1_DescribeRequest, callback: grpc.requestCallback<_fathom_inference_v1_DescribeReply__Output>): grpc.ClientUnaryCall;
  
  Generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  Generate(argument: _fathom_inference_v1_GenerateRequest, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  generate(argument: _fathom_inference_v1_GenerateRequest, callback: grpc.requestCallback<_fathom_inference_v1_GenerateReply__Output>): grpc.ClientUnaryCall;
  
  /**
   * A leaf read llm(question, chunk) by the checkpoint's span head or its paired reader (<dir>/reader): a span of the
   * chunk, or "unknown". FAILED_PRECONDITION naming the checkpoint when it has no span reader.
   */
  ReadSpan(argument: _fathom_inference_v1_ReadSpanRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  ReadSpan(argument: _fathom_inference_v1_ReadSpanRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  ReadSpan(argument: _fathom_inference_v1_ReadSpanRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  ReadSpan(argument: _fathom_inference_v1_ReadSpanRequest, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  /**
   * A leaf read llm(question, chunk) by the checkpoint's span head or its paired reader (<dir>/reader): a span of the
   * chunk, or "unknown". FAILED_PRECONDITION naming the checkpoint when it has no span reader.
   */
  readSpan(argument: _fathom_inference_v1_ReadSpanRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  readSpan(argument: _fathom_inference_v1_ReadSpanRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  readSpan(argument: _fathom_inference_v1_ReadSpanRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  readSpan(argument: _fathom_inference_v1_ReadSpanRequest, callback: grpc.requestCallback<_fathom_inference_v1_ReadSpanReply__Output>): grpc.ClientUnaryCall;
  
}

export interface InferenceHandlers extends grpc.UntypedServiceImplementation {
  /**
   * What the served checkpoint can do; loads it first (FAILED_PRECONDITION naming the folder when it cannot be).
   */
  Describe: grpc.handleUnaryCall<_fathom_inference_v1_DescribeRequest__Output, _fathom_inference_v1_DescribeReply>;
  
  Generate: grpc.handleUnaryCall<_fathom_inference_v1_GenerateRequest__Output, _fathom_inference_v1_GenerateReply>;
  
  /**
   * A leaf read llm(question, chunk) by the checkpoint's span head or its paired reader (<dir>/reader): a span of the
   * chunk, or "unknown". FAILED_PRECONDITION naming the checkpoint when it has no span reader.
   */
  ReadSpan: grpc.handleUnaryCall<_fathom_inference_v1_ReadSpanRequest__Output, _fathom_inference_v1_ReadSpanReply>;
  
}

export interface InferenceDefinition extends grpc.ServiceDefinition {
  Describe: MethodDefinition<_fathom_inference_v1_DescribeRequest, _fathom_inference_v1_DescribeReply, _fathom_inference_v1_DescribeRequest__Output, _fathom_inference_v1_DescribeReply__Output>
  Generate: MethodDefinition<_fathom_inference_v1_GenerateRequest, _fathom_inference_v1_GenerateReply, _fathom_inference_v1_GenerateRequest__Output, _fathom_inference_v1_GenerateReply__Output>
  ReadSpan: MethodDefinition<_fathom_inference_v1_ReadSpanRequest, _fathom_inference_v1_ReadSpanReply, _fathom_inference_v1_ReadSpanRequest__Output, _fathom_inference_v1_ReadSpanReply__Output>
}
