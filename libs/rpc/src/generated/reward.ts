import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { Components as _fathom_reward_v1_Components, Components__Output as _fathom_reward_v1_Components__Output } from './fathom/reward/v1/Components';
import type { Diagnostics as _fathom_reward_v1_Diagnostics, Diagnostics__Output as _fathom_reward_v1_Diagnostics__Output } from './fathom/reward/v1/Diagnostics';
import type { LlmCall as _fathom_reward_v1_LlmCall, LlmCall__Output as _fathom_reward_v1_LlmCall__Output } from './fathom/reward/v1/LlmCall';
import type { MeanStd as _fathom_reward_v1_MeanStd, MeanStd__Output as _fathom_reward_v1_MeanStd__Output } from './fathom/reward/v1/MeanStd';
import type { RewardClient as _fathom_reward_v1_RewardClient, RewardDefinition as _fathom_reward_v1_RewardDefinition } from './fathom/reward/v1/Reward';
import type { RewardResult as _fathom_reward_v1_RewardResult, RewardResult__Output as _fathom_reward_v1_RewardResult__Output } from './fathom/reward/v1/RewardResult';
import type { ScoreGroupReply as _fathom_reward_v1_ScoreGroupReply, ScoreGroupReply__Output as _fathom_reward_v1_ScoreGroupReply__Output } from './fathom/reward/v1/ScoreGroupReply';
import type { ScoreGroupRequest as _fathom_reward_v1_ScoreGroupRequest, ScoreGroupRequest__Output as _fathom_reward_v1_ScoreGroupRequest__Output } from './fathom/reward/v1/ScoreGroupRequest';
import type { TaskRef as _fathom_reward_v1_TaskRef, TaskRef__Output as _fathom_reward_v1_TaskRef__Output } from './fathom/reward/v1/TaskRef';
import type { Trajectory as _fathom_reward_v1_Trajectory, Trajectory__Output as _fathom_reward_v1_Trajectory__Output } from './fathom/reward/v1/Trajectory';
import type { Turn as _fathom_reward_v1_Turn, Turn__Output as _fathom_reward_v1_Turn__Output } from './fathom/reward/v1/Turn';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fathom: {
    reward: {
      v1: {
        Components: MessageTypeDefinition<_fathom_reward_v1_Components, _fathom_reward_v1_Components__Output>
        Diagnostics: MessageTypeDefinition<_fathom_reward_v1_Diagnostics, _fathom_reward_v1_Diagnostics__Output>
        LlmCall: MessageTypeDefinition<_fathom_reward_v1_LlmCall, _fathom_reward_v1_LlmCall__Output>
        MeanStd: MessageTypeDefinition<_fathom_reward_v1_MeanStd, _fathom_reward_v1_MeanStd__Output>
        Reward: SubtypeConstructor<typeof grpc.Client, _fathom_reward_v1_RewardClient> & { service: _fathom_reward_v1_RewardDefinition }
        RewardResult: MessageTypeDefinition<_fathom_reward_v1_RewardResult, _fathom_reward_v1_RewardResult__Output>
        ScoreGroupReply: MessageTypeDefinition<_fathom_reward_v1_ScoreGroupReply, _fathom_reward_v1_ScoreGroupReply__Output>
        ScoreGroupRequest: MessageTypeDefinition<_fathom_reward_v1_ScoreGroupRequest, _fathom_reward_v1_ScoreGroupRequest__Output>
        TaskRef: MessageTypeDefinition<_fathom_reward_v1_TaskRef, _fathom_reward_v1_TaskRef__Output>
        Trajectory: MessageTypeDefinition<_fathom_reward_v1_Trajectory, _fathom_reward_v1_Trajectory__Output>
        Turn: MessageTypeDefinition<_fathom_reward_v1_Turn, _fathom_reward_v1_Turn__Output>
      }
    }
  }
}

