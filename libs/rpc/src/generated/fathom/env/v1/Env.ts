// Original file: proto/env.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CloseReply as _fathom_env_v1_CloseReply, CloseReply__Output as _fathom_env_v1_CloseReply__Output } from '../../../fathom/env/v1/CloseReply';
import type { EnvState as _fathom_env_v1_EnvState, EnvState__Output as _fathom_env_v1_EnvState__Output } from '../../../fathom/env/v1/EnvState';
import type { EpisodeRef as _fathom_env_v1_EpisodeRef, EpisodeRef__Output as _fathom_env_v1_EpisodeRef__Output } from '../../../fathom/env/v1/EpisodeRef';
import type { ResetRequest as _fathom_env_v1_ResetRequest, ResetRequest__Output as _fathom_env_v1_ResetRequest__Output } from '../../../fathom/env/v1/ResetRequest';
import type { SessionReply as _fathom_env_v1_SessionReply, SessionReply__Output as _fathom_env_v1_SessionReply__Output } from '../../../fathom/env/v1/SessionReply';
import type { SessionRequest as _fathom_env_v1_SessionRequest, SessionRequest__Output as _fathom_env_v1_SessionRequest__Output } from '../../../fathom/env/v1/SessionRequest';
import type { StepReply as _fathom_env_v1_StepReply, StepReply__Output as _fathom_env_v1_StepReply__Output } from '../../../fathom/env/v1/StepReply';
import type { StepRequest as _fathom_env_v1_StepRequest, StepRequest__Output as _fathom_env_v1_StepRequest__Output } from '../../../fathom/env/v1/StepRequest';

export interface EnvClient extends grpc.Client {
  /**
   * Ends the episode and frees its sandbox. Closing an unknown episode is NOT_FOUND.
   */
  Close(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_CloseReply__Output>): grpc.ClientUnaryCall;
  Close(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_CloseReply__Output>): grpc.ClientUnaryCall;
  Close(argument: _fathom_env_v1_EpisodeRef, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_CloseReply__Output>): grpc.ClientUnaryCall;
  Close(argument: _fathom_env_v1_EpisodeRef, callback: grpc.requestCallback<_fathom_env_v1_CloseReply__Output>): grpc.ClientUnaryCall;
  
  /**
   * Starts (or restarts) an episode and returns its first observation.
   */
  Reset(argument: _fathom_env_v1_ResetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Reset(argument: _fathom_env_v1_ResetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Reset(argument: _fathom_env_v1_ResetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Reset(argument: _fathom_env_v1_ResetRequest, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  /**
   * Starts (or restarts) an episode and returns its first observation.
   */
  reset(argument: _fathom_env_v1_ResetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  reset(argument: _fathom_env_v1_ResetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  reset(argument: _fathom_env_v1_ResetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  reset(argument: _fathom_env_v1_ResetRequest, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  
  /**
   * One session on one stream, as OpenEnv's WebSocket session (/ws): requests are answered in order, one reply each
   * (close aside), and the session holds at most one episode. The stream takes a capacity slot when it opens (else it
   * ends at once with RESOURCE_EXHAUSTED) and ends its episode when it ends; a stream idle for the service's idle
   * timeout ends with DEADLINE_EXCEEDED. A request that fails is answered with a SessionError and the session goes
   * on. "close" ends the episode and the stream. A stream spares each step a new HTTP/2 call.
   * An episode reset with serve_llm has its llm() calls answered by this stream's client: while a step runs, the
   * server writes an llm_request for each call and the client answers it with an llm_reply (out of turn: the step it
   * serves is still in flight).
   */
  Session(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionReply__Output>;
  Session(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionReply__Output>;
  /**
   * One session on one stream, as OpenEnv's WebSocket session (/ws): requests are answered in order, one reply each
   * (close aside), and the session holds at most one episode. The stream takes a capacity slot when it opens (else it
   * ends at once with RESOURCE_EXHAUSTED) and ends its episode when it ends; a stream idle for the service's idle
   * timeout ends with DEADLINE_EXCEEDED. A request that fails is answered with a SessionError and the session goes
   * on. "close" ends the episode and the stream. A stream spares each step a new HTTP/2 call.
   * An episode reset with serve_llm has its llm() calls answered by this stream's client: while a step runs, the
   * server writes an llm_request for each call and the client answers it with an llm_reply (out of turn: the step it
   * serves is still in flight).
   */
  session(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionReply__Output>;
  session(options?: grpc.CallOptions): grpc.ClientDuplexStream<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionReply__Output>;
  
  State(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  State(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  State(argument: _fathom_env_v1_EpisodeRef, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  State(argument: _fathom_env_v1_EpisodeRef, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  state(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  state(argument: _fathom_env_v1_EpisodeRef, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  state(argument: _fathom_env_v1_EpisodeRef, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  state(argument: _fathom_env_v1_EpisodeRef, callback: grpc.requestCallback<_fathom_env_v1_EnvState__Output>): grpc.ClientUnaryCall;
  
  /**
   * Runs code in the episode's REPL, or submits the final answer.
   */
  Step(argument: _fathom_env_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Step(argument: _fathom_env_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Step(argument: _fathom_env_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  Step(argument: _fathom_env_v1_StepRequest, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  /**
   * Runs code in the episode's REPL, or submits the final answer.
   */
  step(argument: _fathom_env_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  step(argument: _fathom_env_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  step(argument: _fathom_env_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  step(argument: _fathom_env_v1_StepRequest, callback: grpc.requestCallback<_fathom_env_v1_StepReply__Output>): grpc.ClientUnaryCall;
  
}

export interface EnvHandlers extends grpc.UntypedServiceImplementation {
  /**
   * Ends the episode and frees its sandbox. Closing an unknown episode is NOT_FOUND.
   */
  Close: grpc.handleUnaryCall<_fathom_env_v1_EpisodeRef__Output, _fathom_env_v1_CloseReply>;
  
  /**
   * Starts (or restarts) an episode and returns its first observation.
   */
  Reset: grpc.handleUnaryCall<_fathom_env_v1_ResetRequest__Output, _fathom_env_v1_StepReply>;
  
  /**
   * One session on one stream, as OpenEnv's WebSocket session (/ws): requests are answered in order, one reply each
   * (close aside), and the session holds at most one episode. The stream takes a capacity slot when it opens (else it
   * ends at once with RESOURCE_EXHAUSTED) and ends its episode when it ends; a stream idle for the service's idle
   * timeout ends with DEADLINE_EXCEEDED. A request that fails is answered with a SessionError and the session goes
   * on. "close" ends the episode and the stream. A stream spares each step a new HTTP/2 call.
   * An episode reset with serve_llm has its llm() calls answered by this stream's client: while a step runs, the
   * server writes an llm_request for each call and the client answers it with an llm_reply (out of turn: the step it
   * serves is still in flight).
   */
  Session: grpc.handleBidiStreamingCall<_fathom_env_v1_SessionRequest__Output, _fathom_env_v1_SessionReply>;
  
  State: grpc.handleUnaryCall<_fathom_env_v1_EpisodeRef__Output, _fathom_env_v1_EnvState>;
  
  /**
   * Runs code in the episode's REPL, or submits the final answer.
   */
  Step: grpc.handleUnaryCall<_fathom_env_v1_StepRequest__Output, _fathom_env_v1_StepReply>;
  
}

export interface EnvDefinition extends grpc.ServiceDefinition {
  Close: MethodDefinition<_fathom_env_v1_EpisodeRef, _fathom_env_v1_CloseReply, _fathom_env_v1_EpisodeRef__Output, _fathom_env_v1_CloseReply__Output>
  Reset: MethodDefinition<_fathom_env_v1_ResetRequest, _fathom_env_v1_StepReply, _fathom_env_v1_ResetRequest__Output, _fathom_env_v1_StepReply__Output>
  Session: MethodDefinition<_fathom_env_v1_SessionRequest, _fathom_env_v1_SessionReply, _fathom_env_v1_SessionRequest__Output, _fathom_env_v1_SessionReply__Output>
  State: MethodDefinition<_fathom_env_v1_EpisodeRef, _fathom_env_v1_EnvState, _fathom_env_v1_EpisodeRef__Output, _fathom_env_v1_EnvState__Output>
  Step: MethodDefinition<_fathom_env_v1_StepRequest, _fathom_env_v1_StepReply, _fathom_env_v1_StepRequest__Output, _fathom_env_v1_StepReply__Output>
}
