import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CloseReply as _fathom_env_v1_CloseReply, CloseReply__Output as _fathom_env_v1_CloseReply__Output } from './fathom/env/v1/CloseReply';
import type { EnvClient as _fathom_env_v1_EnvClient, EnvDefinition as _fathom_env_v1_EnvDefinition } from './fathom/env/v1/Env';
import type { EnvState as _fathom_env_v1_EnvState, EnvState__Output as _fathom_env_v1_EnvState__Output } from './fathom/env/v1/EnvState';
import type { EpisodeRef as _fathom_env_v1_EpisodeRef, EpisodeRef__Output as _fathom_env_v1_EpisodeRef__Output } from './fathom/env/v1/EpisodeRef';
import type { LlmAnswer as _fathom_env_v1_LlmAnswer, LlmAnswer__Output as _fathom_env_v1_LlmAnswer__Output } from './fathom/env/v1/LlmAnswer';
import type { LlmCall as _fathom_env_v1_LlmCall, LlmCall__Output as _fathom_env_v1_LlmCall__Output } from './fathom/env/v1/LlmCall';
import type { LlmReply as _fathom_env_v1_LlmReply, LlmReply__Output as _fathom_env_v1_LlmReply__Output } from './fathom/env/v1/LlmReply';
import type { Observation as _fathom_env_v1_Observation, Observation__Output as _fathom_env_v1_Observation__Output } from './fathom/env/v1/Observation';
import type { ResetRequest as _fathom_env_v1_ResetRequest, ResetRequest__Output as _fathom_env_v1_ResetRequest__Output } from './fathom/env/v1/ResetRequest';
import type { SessionControl as _fathom_env_v1_SessionControl, SessionControl__Output as _fathom_env_v1_SessionControl__Output } from './fathom/env/v1/SessionControl';
import type { SessionError as _fathom_env_v1_SessionError, SessionError__Output as _fathom_env_v1_SessionError__Output } from './fathom/env/v1/SessionError';
import type { SessionReply as _fathom_env_v1_SessionReply, SessionReply__Output as _fathom_env_v1_SessionReply__Output } from './fathom/env/v1/SessionReply';
import type { SessionRequest as _fathom_env_v1_SessionRequest, SessionRequest__Output as _fathom_env_v1_SessionRequest__Output } from './fathom/env/v1/SessionRequest';
import type { StepError as _fathom_env_v1_StepError, StepError__Output as _fathom_env_v1_StepError__Output } from './fathom/env/v1/StepError';
import type { StepReply as _fathom_env_v1_StepReply, StepReply__Output as _fathom_env_v1_StepReply__Output } from './fathom/env/v1/StepReply';
import type { StepRequest as _fathom_env_v1_StepRequest, StepRequest__Output as _fathom_env_v1_StepRequest__Output } from './fathom/env/v1/StepRequest';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  fathom: {
    env: {
      v1: {
        CloseReply: MessageTypeDefinition<_fathom_env_v1_CloseReply, _fathom_env_v1_CloseReply__Output>
        Env: SubtypeConstructor<typeof grpc.Client, _fathom_env_v1_EnvClient> & { service: _fathom_env_v1_EnvDefinition }
        EnvState: MessageTypeDefinition<_fathom_env_v1_EnvState, _fathom_env_v1_EnvState__Output>
        EpisodeRef: MessageTypeDefinition<_fathom_env_v1_EpisodeRef, _fathom_env_v1_EpisodeRef__Output>
        LlmAnswer: MessageTypeDefinition<_fathom_env_v1_LlmAnswer, _fathom_env_v1_LlmAnswer__Output>
        LlmCall: MessageTypeDefinition<_fathom_env_v1_LlmCall, _fathom_env_v1_LlmCall__Output>
        LlmReply: MessageTypeDefinition<_fathom_env_v1_LlmReply, _fathom_env_v1_LlmReply__Output>
        Observation: MessageTypeDefinition<_fathom_env_v1_Observation, _fathom_env_v1_Observation__Output>
        ResetRequest: MessageTypeDefinition<_fathom_env_v1_ResetRequest, _fathom_env_v1_ResetRequest__Output>
        SessionControl: MessageTypeDefinition<_fathom_env_v1_SessionControl, _fathom_env_v1_SessionControl__Output>
        SessionError: MessageTypeDefinition<_fathom_env_v1_SessionError, _fathom_env_v1_SessionError__Output>
        SessionReply: MessageTypeDefinition<_fathom_env_v1_SessionReply, _fathom_env_v1_SessionReply__Output>
        SessionRequest: MessageTypeDefinition<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionRequest__Output>
        StepError: MessageTypeDefinition<_fathom_env_v1_StepError, _fathom_env_v1_StepError__Output>
        StepReply: MessageTypeDefinition<_fathom_env_v1_StepReply, _fathom_env_v1_StepReply__Output>
        StepRequest: MessageTypeDefinition<_fathom_env_v1_StepRequest, _fathom_env_v1_StepRequest__Output>
      }
    }
  }
}

