import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  EnvResetRequestSchema,
  WS_MESSAGE_TYPES,
  WsIncomingSchema,
  WsStepDataSchema,
  type WsOutgoing,
} from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { EnvServiceConfig } from '../config';
import { EnvError, toEnvError, wsCodeOf } from '../errors';
import type { EpisodeService } from '../episode/episode.service';
import type { EnvMetrics } from '../metrics';
import { CONFIG, EPISODES, LOGGER, METRICS } from '../tokens';
import { parseInput } from '../validate';

/** Messages bigger than this many times the body limit are refused by the ws library itself (close code 1009). */
const HARD_LIMIT_FACTOR = 4;

/** One WebSocket connection: at most one episode at a time, messages handled one after another. */
interface Connection {
  socket: WebSocket;
  episodeId: string | null;
  tail: Promise<void>;
}

/**
 * WebSocket /ws, OpenEnv's session transport: `{"type":"reset"|"step"|"state"|"close","data":…}` in,
 * `{"type":"observation"|"state"|"error","data":…}` out. The connection is the session: one episode per
 * connection, closed with the connection. Built on the ws library directly, attached to Nest's HTTP server.
 */
@Injectable()
export class WsGateway implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly server: WebSocketServer;
  private readonly connections = new Set<Connection>();

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(EPISODES) private readonly episodes: EpisodeService,
    @Inject(CONFIG) private readonly config: EnvServiceConfig,
    @Inject(METRICS) private readonly metrics: EnvMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: config.MAX_BODY_BYTES * HARD_LIMIT_FACTOR });
  }

  onApplicationBootstrap(): void {
    const http = this.adapterHost.httpAdapter.getHttpServer() as Server;
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (new URL(req.url ?? '/', 'http://x').pathname !== '/ws') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
  }

  async onApplicationShutdown(): Promise<void> {
    for (const connection of this.connections) connection.socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    const connection: Connection = { socket, episodeId: null, tail: Promise.resolve() };
    this.connections.add(connection);
    socket.on('message', (data, isBinary) => {
      connection.tail = connection.tail.then(() => this.onMessage(connection, data, isBinary));
    });
    socket.on('close', () => {
      this.connections.delete(connection);
      connection.tail = connection.tail.then(() => this.endEpisode(connection));
    });
    socket.on('error', (error) => this.logger.warn('websocket error', { err: error }));
  }

  private async onMessage(connection: Connection, data: RawData, isBinary: boolean): Promise<void> {
    try {
      const reply = await this.handle(connection, data, isBinary);
      if (reply) this.send(connection, reply);
    } catch (error) {
      const envError = toEnvError(error);
      if (envError.code === 'INTERNAL') this.logger.error('unhandled error in a websocket handler', { err: error });
      this.metrics.errors.inc({ code: envError.code });
      this.send(connection, {
        type: 'error',
        data: {
          message: envError.message,
          code: wsCodeOf(envError.code),
          reason: envError.code,
          ...(envError.details === undefined ? {} : { details: envError.details }),
        },
      });
    }
  }

  private async handle(connection: Connection, data: RawData, isBinary: boolean): Promise<WsOutgoing | null> {
    const text = rawToString(data);
    if (Buffer.byteLength(text) > this.config.MAX_BODY_BYTES) {
      throw new EnvError(
        'PAYLOAD_TOO_LARGE',
        `message of ${Buffer.byteLength(text)} bytes is over the limit of ${this.config.MAX_BODY_BYTES} bytes`,
      );
    }
    if (isBinary) throw new EnvError('INVALID_JSON', 'binary frames are not accepted; send JSON text');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new EnvError('INVALID_JSON', `message is not valid JSON: ${(error as Error).message}`);
    }
    const message = parseInput(WsIncomingSchema, json, 'message');
    switch (message.type) {
      case 'reset': {
        await this.endEpisode(connection);
        const request = parseInput(EnvResetRequestSchema, message.data ?? {}, 'data');
        const { episode, reply } = await this.episodes.reset(request, 'ws');
        connection.episodeId = episode.id;
        return { type: 'observation', data: reply };
      }
      case 'step': {
        const step = parseInput(WsStepDataSchema, message.data, 'data');
        return { type: 'observation', data: await this.episodes.step(this.requireEpisode(connection), step, 'ws') };
      }
      case 'state':
        return { type: 'state', data: this.episodes.state(this.requireEpisode(connection)) };
      case 'close':
        await this.endEpisode(connection);
        connection.socket.close(1000, 'closed by client');
        return null;
      default:
        throw new EnvError(
          'UNKNOWN_TYPE',
          `unknown message type "${message.type}"; expected one of ${WS_MESSAGE_TYPES.join(', ')}`,
        );
    }
  }

  private requireEpisode(connection: Connection): string {
    if (connection.episodeId === null) {
      throw new EnvError('NO_ACTIVE_EPISODE', 'no episode on this connection: send {"type":"reset"} first');
    }
    return connection.episodeId;
  }

  private async endEpisode(connection: Connection): Promise<void> {
    const id = connection.episodeId;
    connection.episodeId = null;
    if (id !== null) await this.episodes.close(id).catch(() => undefined);
  }

  private send(connection: Connection, message: WsOutgoing): void {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(JSON.stringify(message));
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
