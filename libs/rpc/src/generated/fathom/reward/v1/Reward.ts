// Original file: proto/reward.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { ScoreGroupReply as _fathom_reward_v1_ScoreGroupReply, ScoreGroupReply__Output as _fathom_reward_v1_ScoreGroupReply__Output } from '../../../fathom/reward/v1/ScoreGroupReply';
import type { ScoreGroupRequest as _fathom_reward_v1_ScoreGroupRequest, ScoreGroupRequest__Output as _fathom_reward_v1_ScoreGroupRequest__Output } from '../../../fathom/reward/v1/ScoreGroupRequest';

export interface RewardClient extends grpc.Client {
  /**
   * Scores each trajectory of a group against one task; the reply has one result per trajectory, in order, and
   * the group's statistics.
   */
  ScoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  ScoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  ScoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  ScoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  /**
   * Scores each trajectory of a group against one task; the reply has one result per trajectory, in order, and
   * the group's statistics.
   */
  scoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  scoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  scoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  scoreGroup(argument: _fathom_reward_v1_ScoreGroupRequest, callback: grpc.requestCallback<_fathom_reward_v1_ScoreGroupReply__Output>): grpc.ClientUnaryCall;
  
}

export interface RewardHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Scores each trajectory of a group against one task; the reply has one result per trajectory, in order, and
   * the group's statistics.
   */
  ScoreGroup: grpc.handleUnaryCall<_fathom_reward_v1_ScoreGroupRequest__Output, _fathom_reward_v1_ScoreGroupReply>;
  
}

export interface RewardDefinition extends grpc.ServiceDefinition {
  ScoreGroup: MethodDefinition<_fathom_reward_v1_ScoreGroupRequest, _fathom_reward_v1_ScoreGroupReply, _fathom_reward_v1_ScoreGroupRequest__Output, _fathom_reward_v1_ScoreGroupReply__Output>
}
