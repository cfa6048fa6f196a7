// Original file: proto/policy.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { GetWeightsRequest as _fathom_policy_v1_GetWeightsRequest, GetWeightsRequest__Output as _fathom_policy_v1_GetWeightsRequest__Output } from '../../../fathom/policy/v1/GetWeightsRequest';
import type { LatestRequest as _fathom_policy_v1_LatestRequest, LatestRequest__Output as _fathom_policy_v1_LatestRequest__Output } from '../../../fathom/policy/v1/LatestRequest';
import type { PolicyVersionInfo as _fathom_policy_v1_PolicyVersionInfo, PolicyVersionInfo__Output as _fathom_policy_v1_PolicyVersionInfo__Output } from '../../../fathom/policy/v1/PolicyVersionInfo';
import type { WeightsChunk as _fathom_policy_v1_WeightsChunk, WeightsChunk__Output as _fathom_policy_v1_WeightsChunk__Output } from '../../../fathom/policy/v1/WeightsChunk';

export interface PolicyClient extends grpc.Client {
  /**
   * The newest policy version of a run: what a rollout worker should sample with now.
   */
  GetLatest(argument: _fathom_policy_v1_LatestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  GetLatest(argument: _fathom_policy_v1_LatestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  GetLatest(argument: _fathom_policy_v1_LatestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  GetLatest(argument: _fathom_policy_v1_LatestRequest, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  /**
   * The newest policy version of a run: what a rollout worker should sample with now.
   */
  getLatest(argument: _fathom_policy_v1_LatestRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  getLatest(argument: _fathom_policy_v1_LatestRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  getLatest(argument: _fathom_policy_v1_LatestRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  getLatest(argument: _fathom_policy_v1_LatestRequest, callback: grpc.requestCallback<_fathom_policy_v1_PolicyVersionInfo__Output>): grpc.ClientUnaryCall;
  
  /**
   * The weights of one version as a stream: first one chunk holding the header (config and tensor manifest),
   * then chunks of tensor bytes. Tensors are concatenated in manifest order, each little-endian in its dtype, so a
   * client can write chunks straight into preallocated buffers at `offset`.
   */
  GetWeights(argument: _fathom_policy_v1_GetWeightsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fathom_policy_v1_WeightsChunk__Output>;
  GetWeights(argument: _fathom_policy_v1_GetWeightsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fathom_policy_v1_WeightsChunk__Output>;
  /**
   * The weights of one version as a stream: first one chunk holding the header (config and tensor manifest),
   * then chunks of tensor bytes. Tensors are concatenated in manifest order, each little-endian in its dtype, so a
   * client can write chunks straight into preallocated buffers at `offset`.
   */
  getWeights(argument: _fathom_policy_v1_GetWeightsRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_fathom_policy_v1_WeightsChunk__Output>;
  getWeights(argument: _fathom_policy_v1_GetWeightsRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_fathom_policy_v1_WeightsChunk__Output>;
  
}

export interface PolicyHandlers extends grpc.UntypedServiceImplementation {
  /**
   * The newest policy version of a run: what a rollout worker should sample with now.
   */
  GetLatest: grpc.handleUnaryCall<_fathom_policy_v1_LatestRequest__Output, _fathom_policy_v1_PolicyVersionInfo>;
  
  /**
   * The weights of one version as a stream: first one chunk holding the header (config and tensor manifest),
   * then chunks of tensor bytes. Tensors are concatenated in manifest order, each little-endian in its dtype, so a
   * client can write chunks straight into preallocated buffers at `offset`.
   */
  GetWeights: grpc.handleServerStreamingCall<_fathom_policy_v1_GetWeightsRequest__Output, _fathom_policy_v1_WeightsChunk>;
  
}

export interface PolicyDefinition extends grpc.ServiceDefinition {
  GetLatest: MethodDefinition<_fathom_policy_v1_LatestRequest, _fathom_policy_v1_PolicyVersionInfo, _fathom_policy_v1_LatestRequest__Output, _fathom_policy_v1_PolicyVersionInfo__Output>
  GetWeights: MethodDefinition<_fathom_policy_v1_GetWeightsRequest, _fathom_policy_v1_WeightsChunk, _fathom_policy_v1_GetWeightsRequest__Output, _fathom_policy_v1_WeightsChunk__Output>
}
