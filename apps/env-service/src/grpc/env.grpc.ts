import * as grpc from '@grpc/grpc-js';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod, GrpcStreamCall } from '@nestjs/microservices';
import {
  EnvResetRequestSchema,
  EnvStepRequestSchema,
  EpisodeIdSchema,
  SessionLlmReplySchema,
  type EnvState,
  type EnvStepReply,
  type SessionLlmRequest,
} from '@fathom/contracts';
import { Logger } from '@fathom/observability';
import { z } from 'zod';
import { EnvServiceConfig } from '../config';
import { EnvError, grpcStatusOf, toEnvError } from '../errors';
import { EpisodeService } from '../episode/episode.service';
import { EnvMetrics } from '../metrics';
import { EnvSession } from '../session/env-session';
import { parseInput } from '../validate';
import { UndecodableRequest } from '@fathom/rpc';
import { EnvGrpcErrorFilter } from './env-grpc-error.filter';

type Message = Record<string, unknown>;
const EpisodeRefSchema = z.object({ episode_id: EpisodeIdSchema });
/** gRPC steps always name their episode (the stateless HTTP step has no gRPC counterpart). */
const GrpcStepRequestSchema = EnvStepRequestSchema.extend({ episode_id: EpisodeIdSchema });

/** One Session stream and the session it carries; `idle` ends it after IDLE_TIMEOUT_S with nothing in flight. */
interface StreamSession {
  call: grpc.ServerDuplexStream<Message, Message>;
  session: EnvSession;
  idle: NodeJS.Timeout | undefined;
}

/**
 * The gRPC Env service (proto/env.proto) for FATHOM's own services, served on `GrpcTransport` beside the HTTP
 * application: same semantics and validation as the HTTP API; every EnvError becomes a gRPC status with its message
 * (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, RESOURCE_EXHAUSTED, …; `EnvGrpcErrorFilter`). `Session` is the
 * WebSocket session (/ws) on one bidirectional stream: a failed request is answered with a SessionError carrying that
 * status, and the stream goes on. An episode reset with serve_llm has its llm() calls written to the stream as
 * llm_request replies, answered by the client's llm_reply requests, which are handled at once (the step they serve
 * holds the session's queue).
 */
@Controller()
@UseFilters(EnvGrpcErrorFilter)
export class EnvGrpcController {
  constructor(
    @Inject(EpisodeService) private readonly episodes: EpisodeService,
    @Inject(EnvServiceConfig) private readonly config: EnvServiceConfig,
    @Inject(EnvMetrics) private readonly metrics: EnvMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  @GrpcMethod('Env', 'Reset')
  async reset(request: Message): Promise<Message> {
    const parsed = parseInput(EnvResetRequestSchema, resetFromProto(withoutSyntheticOneofs(request)), 'request');
    return replyToProto((await this.episodes.reset(parsed, 'grpc')).reply);
  }

  @GrpcMethod('Env', 'Step')
  async step(request: Message): Promise<Message> {
    const step = stepFromProto(withoutSyntheticOneofs(request));
    const { episode_id, ...data } = parseInput(GrpcStepRequestSchema, step, 'request');
    return replyToProto(await this.episodes.step(episode_id, data, 'grpc'));
  }

  @GrpcMethod('Env', 'State')
  state(request: Message): Message {
    return stateToProto(this.episodes.state(parseInput(EpisodeRefSchema, request, 'request').episode_id));
  }

  @GrpcMethod('Env', 'Close')
  async close(request: Message): Promise<Message> {
    const { episode_id } = parseInput(EpisodeRefSchema, request, 'request');
    await this.episodes.close(episode_id);
    return { episode_id, closed: true };
  }

  @GrpcStreamCall('Env', 'Session')
  session(call: grpc.ServerDuplexStream<Message, Message>): void {
    this.openSession(call);
  }

  /**
   * A Session stream: takes a capacity slot (or ends at once with RESOURCE_EXHAUSTED), answers its requests in order,
   * and ends its episode and frees the slot when the stream ends, is cancelled, is closed by a "close" request, or
   * stays idle (nothing in flight, nothing received) for IDLE_TIMEOUT_S.
   */
  private openSession(call: grpc.ServerDuplexStream<Message, Message>): void {
    let stream: StreamSession;
    try {
      const llm = {
        send: (request: SessionLlmRequest) => {
          if (!stream.session.ended) call.write({ llm_request: request });
        },
        timeoutMs: this.config.INFERENCE_TIMEOUT_MS,
      };
      // Paused, the stream asks grpc-js for no more messages, and HTTP/2 flow control holds the client back.
      const flow = { pause: () => call.pause(), resume: () => call.resume() };
      stream = { call, session: EnvSession.open(this.episodes, 'grpc', llm, flow), idle: undefined };
    } catch (error) {
      const envError = toEnvError(error);
      this.metrics.errors.inc({ code: envError.code });
      call.emit('error', { code: grpcStatusOf(envError.code), details: envError.message });
      return;
    }
    this.armIdle(stream);
    call.on('data', (request: Message | UndecodableRequest) => {
      if (!(request instanceof UndecodableRequest) && request.message === 'llm_reply') {
        void this.answer(stream, request);
        return;
      }
      stream.session.enqueue(
        async () => {
          await this.answer(stream, request);
          this.armIdle(stream);
        },
        async (error) => this.answer(stream, error),
      );
    });
    // The client half-closed: it can answer no llm request now, and the requests it sent before are answered first.
    call.on('end', () => {
      stream.session.stopServingLlm();
      stream.session.enqueue(async () => this.endSession(stream, 'end'));
    });
    call.on('cancelled', () => this.endSession(stream, 'cancelled'));
    call.on('error', (error) => this.logger.warn('gRPC session stream error', { err: error }));
  }

  /**
   * Answers one request of a session: its reply, or a SessionError (the request's own, or the error it was refused
   * with); a "close" ends the session instead.
   */
  private async answer(stream: StreamSession, request: Message | UndecodableRequest | EnvError): Promise<void> {
    if (stream.session.ended) return;
    let reply: Message;
    try {
      if (request instanceof EnvError) throw request;
      const answered = await this.sessionReply(stream.session, request);
      if (answered === undefined) return;
      if (answered === null) {
        this.endSession(stream, 'end');
        return;
      }
      reply = answered;
    } catch (error) {
      const envError = toEnvError(error);
      if (envError.code === 'INTERNAL') this.logger.error('unhandled error in a gRPC session', { err: error });
      this.metrics.errors.inc({ code: envError.code });
      reply = { error: { status: grpcStatusOf(envError.code), reason: envError.code, message: envError.message } };
    }
    if (!stream.session.ended) stream.call.write(reply);
  }

  /** The reply to a session request; null for "close" (the session ends), undefined for an llm_reply (none). */
  private async sessionReply(
    session: EnvSession,
    request: Message | UndecodableRequest,
  ): Promise<Message | null | undefined> {
    if (request instanceof UndecodableRequest)
      throw new EnvError('INVALID_JSON', `the message is not a SessionRequest protobuf (${request.reason})`);
    switch (request.message) {
      case 'reset': {
        const reset = withoutSyntheticOneofs(request.reset as Message);
        const parsed = parseInput(EnvResetRequestSchema, resetFromProto(reset), 'reset');
        return { observation: replyToProto(await session.reset(parsed)) };
      }
      case 'step': {
        const step = stepFromProto(withoutSyntheticOneofs(request.step as Message));
        const { episode_id, ...data } = parseInput(EnvStepRequestSchema, step, 'step');
        const id = session.requireEpisode();
        if (episode_id !== undefined && episode_id !== id)
          throw new EnvError(
            'VALIDATION_ERROR',
            `step.episode_id "${episode_id}" is not this session's episode "${id}"`,
          );
        return { observation: replyToProto(await session.step(data)) };
      }
      case 'state':
        return { state: stateToProto(session.state()) };
      case 'close':
        return null;
      case 'llm_reply':
        session.answerLlm(
          parseInput(SessionLlmReplySchema, llmReplyFromProto(request.llm_reply as Message), 'llm_reply'),
        );
        return undefined;
      default:
        throw new EnvError('VALIDATION_ERROR', 'a session request sets one of reset, step, state, close or llm_reply');
    }
  }

  /** (Re)starts a session's idle timer: when it fires with nothing in flight, the stream ends DEADLINE_EXCEEDED. */
  private armIdle(stream: StreamSession): void {
    clearTimeout(stream.idle);
    if (stream.session.ended) return;
    stream.idle = setTimeout(() => {
      if (stream.session.pending > 0) return this.armIdle(stream);
      this.logger.info('gRPC session closed after idle timeout', { episode_id: stream.session.episodeId });
      this.endSession(stream, {
        code: grpc.status.DEADLINE_EXCEEDED,
        details: `session idle for more than IDLE_TIMEOUT_S (${this.config.IDLE_TIMEOUT_S} s)`,
      });
    }, this.config.IDLE_TIMEOUT_S * 1000);
    stream.idle.unref();
  }

  /**
   * Ends a session once: the stream ends normally ('end': after the client half-closed, or on a "close" request),
   * with a status (idle), or not at all ('cancelled'); replies still in flight are dropped; after them the episode is
   * closed and the slot freed.
   */
  private endSession(stream: StreamSession, how: 'end' | 'cancelled' | Partial<grpc.StatusObject>): void {
    if (stream.session.ended) return;
    clearTimeout(stream.idle);
    void stream.session.end();
    if (how === 'end') stream.call.end();
    else if (how !== 'cancelled') stream.call.emit('error', how);
  }
}

/**
 * With `oneofs: true`, proto-loader also reports which member of each oneof is set, including the synthetic
 * oneof ("_seed", "_context", …) behind every proto3 `optional` field; those are bookkeeping, not fields.
 */
function withoutSyntheticOneofs(req: Message): Message {
  return Object.fromEntries(Object.entries(req).filter(([key]) => !key.startsWith('_')));
}

/** proto3 has no "absent" for repeated fields: an empty alias list is dropped so it means "not given". */
function resetFromProto(req: Message): Message {
  const { aliases, ...rest } = req;
  return Array.isArray(aliases) && aliases.length > 0 ? { ...rest, aliases } : rest;
}

/** The `action` oneof becomes the JSON action object; the oneof discriminator field is dropped. */
function stepFromProto(req: Message): Message {
  const { code, answer, action: _which, ...rest } = req;
  return { ...rest, action: { ...(code === undefined ? {} : { code }), ...(answer === undefined ? {} : { answer }) } };
}

/** The `result` oneof's discriminator is dropped: the set member (reply or error) says which it is. */
function llmReplyFromProto(req: Message | undefined): Message {
  const { result: _which, ...rest } = req ?? {};
  return rest;
}

/** JSON nulls become unset optional fields. */
function replyToProto(reply: EnvStepReply): Message {
  const { error, reward, correct, answer, context_sha256, ...observation } = reply.observation;
  return {
    observation: {
      ...observation,
      ...(error === null ? {} : { error }),
      ...(reward === null ? {} : { reward }),
      ...(correct === null ? {} : { correct }),
      ...(answer === null ? {} : { answer }),
      ...(context_sha256 === null ? {} : { context_sha256 }),
    },
    ...(reply.reward === null ? {} : { reward: reply.reward }),
    done: reply.done,
  };
}

function stateToProto(state: EnvState): Message {
  const { reward, ...rest } = state;
  return reward === null ? rest : { ...rest, reward };
}
