import * as grpc from '@grpc/grpc-js';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import {
  EnvResetRequestSchema,
  EnvStepRequestSchema,
  EpisodeIdSchema,
  type EnvState,
  type EnvStepReply,
} from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import { z } from 'zod';
import type { EnvServiceConfig } from '../config';
import { EnvError, grpcStatusOf, toEnvError } from '../errors';
import type { SessionSlot } from '../episode/episode';
import type { EpisodeService } from '../episode/episode.service';
import type { EnvMetrics } from '../metrics';
import { CONFIG, EPISODES, LOGGER, METRICS } from '../tokens';
import { parseInput } from '../validate';
import { GRPC_PORT_REF, type GrpcPortRef } from './grpc-port';
import { loadService } from '@fathom/rpc';

type Message = Record<string, unknown>;
const EpisodeRefSchema = z.object({ episode_id: EpisodeIdSchema });
/** gRPC steps always name their episode (the stateless HTTP step has no gRPC counterpart). */
const GrpcStepRequestSchema = EnvStepRequestSchema.extend({ episode_id: EpisodeIdSchema });

/** One Session stream: its capacity slot, its episode, and its requests, answered one after another. */
interface StreamSession {
  call: grpc.ServerDuplexStream<Message, Message>;
  slot: SessionSlot;
  episodeId: string | null;
  tail: Promise<void>;
  /** Requests received and not yet answered. */
  pending: number;
  idle: NodeJS.Timeout | undefined;
  ended: boolean;
}

/**
 * The gRPC Env service (proto/env.proto) for FATHOM's own services: same semantics and validation as the HTTP
 * API; every EnvError becomes a gRPC status with its message (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
 * RESOURCE_EXHAUSTED, …). `Session` is the WebSocket session (/ws) on one bidirectional stream: a failed request
 * is answered with a SessionError carrying that status, and the stream goes on.
 */
@Injectable()
export class EnvGrpcServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: grpc.Server;

  constructor(
    @Inject(EPISODES) private readonly episodes: EpisodeService,
    @Inject(CONFIG) private readonly config: EnvServiceConfig,
    @Inject(METRICS) private readonly metrics: EnvMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(GRPC_PORT_REF) private readonly portRef: GrpcPortRef,
  ) {
    this.server = new grpc.Server({
      'grpc.max_receive_message_length': config.MAX_BODY_BYTES,
      'grpc.max_send_message_length': config.MAX_BODY_BYTES,
    });
    this.server.addService(loadService('env.proto', 'fathom.env.v1.Env').service, {
      Reset: this.unary((req) =>
        this.episodes
          .reset(parseInput(EnvResetRequestSchema, resetFromProto(req), 'request'), 'grpc')
          .then((r) => replyToProto(r.reply)),
      ),
      Step: this.unary(async (req) => {
        const { episode_id, ...data } = parseInput(GrpcStepRequestSchema, stepFromProto(req), 'request');
        return replyToProto(await this.episodes.step(episode_id, data, 'grpc'));
      }),
      State: this.unary(async (req) =>
        stateToProto(this.episodes.state(parseInput(EpisodeRefSchema, req, 'request').episode_id)),
      ),
      Close: this.unary(async (req) => {
        const { episode_id } = parseInput(EpisodeRefSchema, req, 'request');
        await this.episodes.close(episode_id);
        return { episode_id, closed: true };
      }),
      Session: (call: grpc.ServerDuplexStream<Message, Message>) => this.openSession(call),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    const address = `${this.config.HOST.includes(':') ? `[${this.config.HOST}]` : this.config.HOST}:${this.config.GRPC_PORT}`;
    this.portRef.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, port) =>
        err ? reject(err) : resolve(port),
      ),
    );
    this.logger.info('gRPC Env listening', { port: this.portRef.port });
  }

  onApplicationShutdown(): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.server.forceShutdown();
        resolve();
      }, 2_000);
      this.server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /**
   * A Session stream: takes a capacity slot (or ends at once with RESOURCE_EXHAUSTED), answers its requests in order,
   * and ends its episode and frees the slot when the stream ends, is cancelled, is closed by a "close" request, or
   * stays idle (nothing in flight, nothing received) for IDLE_TIMEOUT_S.
   */
  private openSession(call: grpc.ServerDuplexStream<Message, Message>): void {
    let slot: SessionSlot;
    try {
      slot = this.episodes.acquireSlot();
    } catch (error) {
      const envError = toEnvError(error);
      this.metrics.errors.inc({ code: envError.code });
      call.emit('error', { code: grpcStatusOf(envError.code), details: envError.message });
      return;
    }
    const session: StreamSession = {
      call,
      slot,
      episodeId: null,
      tail: Promise.resolve(),
      pending: 0,
      idle: undefined,
      ended: false,
    };
    this.armIdle(session);
    call.on('data', (request: Message) => {
      session.pending++;
      session.tail = session.tail
        .then(() => this.answer(session, request))
        .finally(() => {
          session.pending--;
          this.armIdle(session);
        });
    });
    // The client half-closed: the requests it sent before are answered first.
    call.on('end', () => {
      session.tail = session.tail.then(() => this.endSession(session, 'end'));
    });
    call.on('cancelled', () => this.endSession(session, 'cancelled'));
    call.on('error', (error) => this.logger.warn('gRPC session stream error', { err: error }));
  }

  /** Answers one request of a session: its reply, or a SessionError; a "close" ends the session instead. */
  private async answer(session: StreamSession, request: Message): Promise<void> {
    if (session.ended) return;
    let reply: Message;
    try {
      const answered = await this.sessionReply(session, request);
      if (answered === null) {
        this.endSession(session, 'end');
        return;
      }
      reply = answered;
    } catch (error) {
      const envError = toEnvError(error);
      if (envError.code === 'INTERNAL') this.logger.error('unhandled error in a gRPC session', { err: error });
      this.metrics.errors.inc({ code: envError.code });
      reply = { error: { status: grpcStatusOf(envError.code), reason: envError.code, message: envError.message } };
    }
    if (!session.ended) session.call.write(reply);
  }

  private async sessionReply(session: StreamSession, request: Message): Promise<Message | null> {
    const requireEpisode = () => {
      if (session.episodeId === null)
        throw new EnvError('NO_ACTIVE_EPISODE', 'no episode in this session: send a reset request first');
      return session.episodeId;
    };
    switch (request.message) {
      case 'reset': {
        const reset = withoutSyntheticOneofs(request.reset as Message);
        const parsed = parseInput(EnvResetRequestSchema, resetFromProto(reset), 'reset');
        await this.endEpisode(session);
        const { episode, reply } = await this.episodes.reset(parsed, 'grpc', session.slot);
        session.episodeId = episode.id;
        return { observation: replyToProto(reply) };
      }
      case 'step': {
        const step = stepFromProto(withoutSyntheticOneofs(request.step as Message));
        const { episode_id, ...data } = parseInput(EnvStepRequestSchema, step, 'step');
        const id = requireEpisode();
        if (episode_id !== undefined && episode_id !== id)
          throw new EnvError(
            'VALIDATION_ERROR',
            `step.episode_id "${episode_id}" is not this session's episode "${id}"`,
          );
        return { observation: replyToProto(await this.episodes.step(id, data, 'grpc', session.slot)) };
      }
      case 'state':
        return { state: stateToProto(this.episodes.state(requireEpisode(), session.slot)) };
      case 'close':
        return null;
      default:
        throw new EnvError('VALIDATION_ERROR', 'a session request sets one of reset, step, state or close');
    }
  }

  /** (Re)starts a session's idle timer: when it fires with nothing in flight, the stream ends DEADLINE_EXCEEDED. */
  private armIdle(session: StreamSession): void {
    clearTimeout(session.idle);
    if (session.ended) return;
    session.idle = setTimeout(() => {
      if (session.pending > 0) return this.armIdle(session);
      this.logger.info('gRPC session closed after idle timeout', { episode_id: session.episodeId });
      this.endSession(session, {
        code: grpc.status.DEADLINE_EXCEEDED,
        details: `session idle for more than IDLE_TIMEOUT_S (${this.config.IDLE_TIMEOUT_S} s)`,
      });
    }, this.config.IDLE_TIMEOUT_S * 1000);
    session.idle.unref();
  }

  /**
   * Ends a session once: the stream ends normally ('end': after the client half-closed, or on a "close" request),
   * with a status (idle), or not at all ('cancelled'); replies still in flight are dropped; after them the episode is
   * closed and the slot freed.
   */
  private endSession(session: StreamSession, how: 'end' | 'cancelled' | Partial<grpc.StatusObject>): void {
    if (session.ended) return;
    session.ended = true;
    clearTimeout(session.idle);
    if (how === 'end') session.call.end();
    else if (how !== 'cancelled') session.call.emit('error', how);
    session.tail = session.tail
      .then(() => this.endEpisode(session))
      .finally(() => this.episodes.releaseSlot(session.slot));
  }

  private async endEpisode(session: StreamSession): Promise<void> {
    const id = session.episodeId;
    session.episodeId = null;
    if (id !== null) await this.episodes.close(id, session.slot).catch(() => undefined);
  }

  private unary(fn: (request: Message) => Promise<Message>): grpc.handleUnaryCall<Message, Message> {
    return (call, callback) => {
      Promise.resolve(withoutSyntheticOneofs(call.request))
        .then(fn)
        .then(
          (reply) => callback(null, reply),
          (error: unknown) => {
            const envError = toEnvError(error);
            if (envError.code === 'INTERNAL') this.logger.error('unhandled error in a gRPC handler', { err: error });
            this.metrics.errors.inc({ code: envError.code });
            callback({ code: grpcStatusOf(envError.code), details: envError.message });
          },
        );
    };
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

/** JSON nulls become unset optional fields. */
function replyToProto(reply: EnvStepReply): Message {
  const { error, reward, correct, ...observation } = reply.observation;
  return {
    observation: {
      ...observation,
      ...(error === null ? {} : { error }),
      ...(reward === null ? {} : { reward }),
      ...(correct === null ? {} : { correct }),
    },
    ...(reply.reward === null ? {} : { reward: reply.reward }),
    done: reply.done,
  };
}

function stateToProto(state: EnvState): Message {
  const { reward, ...rest } = state;
  return reward === null ? rest : { ...rest, reward };
}
