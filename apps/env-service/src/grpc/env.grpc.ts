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
import { grpcStatusOf, toEnvError } from '../errors';
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

/**
 * The gRPC Env service (proto/env.proto) for FATHOM's own services: same semantics and validation as the HTTP
 * API; every EnvError becomes a gRPC status with its message (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,
 * RESOURCE_EXHAUSTED, …).
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
