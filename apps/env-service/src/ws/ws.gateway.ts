import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import {
  EnvResetRequestSchema,
  SessionLlmReplySchema,
  WS_MESSAGE_TYPES,
  WsIncomingSchema,
  WsStepDataSchema,
  type JsonRpcResponse,
  type SessionLlmRequest,
  type WsOutgoing,
} from '@fathom/contracts';
import { Logger } from '@fathom/observability';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { EnvServiceConfig } from '../config';
import { EnvError, httpStatusOf, jsonRpcCodeOf, toEnvError, wsCodeOf } from '../errors';
import { EpisodeService } from '../episode/episode.service';
import { requestGuard } from '../http/request-guard';
import { httpErrorBody } from '../http/http-error.filter';
import { McpHandler, type McpSession } from '../mcp/mcp.handler';
import { EnvSession } from '../session/env-session';
import { EnvMetrics } from '../metrics';
import { parseInput } from '../validate';

/** Messages bigger than this many times the body limit are refused by the ws library itself (close code 1009). */
const HARD_LIMIT_FACTOR = 4;
/** WebSocket close code "try again later", sent after the capacity error to a connection refused at connect. */
const CLOSE_TRY_AGAIN_LATER = 1013;
/** WebSocket close code "going away", sent to a connection closed after IDLE_TIMEOUT_S without a message. */
const CLOSE_GOING_AWAY = 1001;

/** The two WebSocket endpoints: OpenEnv's session protocol (/ws) and MCP JSON-RPC (/mcp). */
type Endpoint = '/ws' | '/mcp';

/** One WebSocket connection and the session it carries (from connect to disconnect). */
interface Connection {
  socket: WebSocket;
  endpoint: Endpoint;
  session: EnvSession;
}

/** A message decoded off the socket, or the error that decoding it ended with (answered in its turn). */
type Decoded = { json: unknown } | { error: unknown };

/**
 * The WebSocket transports, built on the ws library directly and attached to Nest's HTTP server. Each connection is
 * a session that takes a capacity slot when it connects (refused with CAPACITY_REACHED and closed when none is
 * free, as OpenEnv checks at connect) and ends its episode when it disconnects. A connection idle (no message in
 * flight, none received) for IDLE_TIMEOUT_S is closed, so idle sessions cannot hold every slot.
 *
 * - /ws, OpenEnv's session protocol: `{"type":"reset"|"step"|"state"|"close"|"mcp"|"llm_reply","data":…}` in,
 *   `{"type":"observation"|"state"|"mcp"|"llm_request"|"error","data":…}` out. A step's `data` is the action
 *   itself (OpenEnv's EnvClient) or FATHOM's `{action, timeout_s?}` envelope; an "mcp" message carries a JSON-RPC
 *   request whose tool calls act on this connection's episode. An episode reset with `serve_llm` sends each llm()
 *   call to the client as an "llm_request", which it answers with an "llm_reply" while the step runs; an
 *   llm_reply is handled at once (out of turn), and a bad one is answered with an "error" at once.
 * - /mcp: bare JSON-RPC 2.0 messages, answered with JSON-RPC responses; openenv/session/create starts this
 *   connection's episode and tools/call without a session_id acts on it.
 */
@Injectable()
export class WsGateway implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly server: WebSocketServer;
  private readonly connections = new Set<Connection>();
  private readonly mcp: McpHandler;
  private readonly reaper: NodeJS.Timeout;
  private readonly guard: ReturnType<typeof requestGuard>;

  constructor(
    @Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost,
    @Inject(EpisodeService) private readonly episodes: EpisodeService,
    @Inject(EnvServiceConfig) private readonly config: EnvServiceConfig,
    @Inject(EnvMetrics) private readonly metrics: EnvMetrics,
    @Inject(Logger) private readonly logger: Logger,
  ) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: config.MAX_BODY_BYTES * HARD_LIMIT_FACTOR });
    this.mcp = new McpHandler(episodes);
    this.guard = requestGuard(config);
    const idleMs = config.IDLE_TIMEOUT_S * 1000;
    this.reaper = setInterval(() => this.closeIdle(idleMs), Math.min(Math.max(idleMs / 4, 250), 30_000));
    this.reaper.unref();
  }

  onApplicationBootstrap(): void {
    const http = this.adapterHost.httpAdapter.getHttpServer() as Server;
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path !== '/ws' && path !== '/mcp') {
        socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
        return;
      }
      const refusal = this.guard(req, path);
      if (refusal !== null) {
        this.refuseUpgrade(socket, refusal);
        return;
      }
      this.server.handleUpgrade(req, socket, head, (ws) => this.accept(ws, path));
    });
  }

  /**
   * Ends every session before Nest closes the HTTP server, which waits for its connections, upgraded ones included:
   * in the later shutdown hook an open session kept the service from ever closing.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.reaper);
    for (const connection of this.connections) connection.socket.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket, endpoint: Endpoint): void {
    let connection: Connection;
    // Only /ws can carry llm_reply messages; JSON-RPC over /mcp has no way to answer an llm_request.
    const llm =
      endpoint === '/ws'
        ? {
            send: (request: SessionLlmRequest) => this.send(connection, { type: 'llm_request', data: request }),
            timeoutMs: this.config.INFERENCE_TIMEOUT_MS,
          }
        : null;
    try {
      connection = {
        socket,
        endpoint,
        session: EnvSession.open(this.episodes, endpoint === '/mcp' ? 'mcp' : 'ws', llm, {
          pause: () => socket.pause(),
          resume: () => socket.resume(),
        }),
      };
    } catch (error) {
      this.refuse(socket, endpoint, toEnvError(error));
      return;
    }
    this.connections.add(connection);
    socket.on('message', (data, isBinary) => {
      const decoded = this.decode(data, isBinary);
      if ('json' in decoded && connection.endpoint === '/ws' && isLlmReply(decoded.json)) {
        void this.onMessage(connection, decoded);
        return;
      }
      connection.session.enqueue(
        () => this.onMessage(connection, decoded),
        (error) => this.onMessage(connection, { error }),
      );
    });
    socket.on('close', () => {
      this.connections.delete(connection);
      void connection.session.end();
    });
    socket.on('error', (error) => this.logger.warn('websocket error', { err: error }));
  }

  private closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const connection of this.connections) {
      if (!connection.session.idleFor(idleMs, now)) continue;
      this.logger.info('websocket session closed after idle timeout', {
        episode_id: connection.session.episodeId,
        idle_ms: now - connection.session.lastActivityMs,
      });
      connection.socket.close(CLOSE_GOING_AWAY, 'idle timeout');
    }
  }

  /**
   * An upgrade refused by the request guard (another web page's Origin, a misdirected Host, no OPENENV_TOKEN): the
   * HTTP status and error body a plain request gets, and no WebSocket.
   */
  private refuseUpgrade(socket: Duplex, error: EnvError): void {
    this.metrics.errors.inc({ code: error.code });
    const status = httpStatusOf(error.code);
    const body = JSON.stringify(httpErrorBody(error));
    const challenge = error.code === 'UNAUTHORIZED' ? 'WWW-Authenticate: Bearer\r\n' : '';
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n${challenge}` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  }

  /** A connection refused at connect (capacity): one error message in the endpoint's protocol, then close. */
  private refuse(socket: WebSocket, endpoint: Endpoint, error: EnvError): void {
    this.metrics.errors.inc({ code: error.code });
    const message =
      endpoint === '/mcp'
        ? { jsonrpc: '2.0', id: null, error: { code: jsonRpcCodeOf(error.code), message: error.message } }
        : { type: 'error', data: { message: error.message, code: wsCodeOf(error.code), reason: error.code } };
    socket.send(JSON.stringify(message), () => socket.close(CLOSE_TRY_AGAIN_LATER, 'server at capacity'));
  }

  private async onMessage(connection: Connection, decoded: Decoded): Promise<void> {
    try {
      if ('error' in decoded) throw decoded.error;
      const reply = await this.handle(connection, decoded.json);
      if (reply) this.send(connection, reply);
    } catch (error) {
      const envError = toEnvError(error);
      if (envError.code === 'INTERNAL') this.logger.error('unhandled error in a websocket handler', { err: error });
      this.metrics.errors.inc({ code: envError.code });
      if (connection.endpoint === '/mcp') {
        const error = { code: jsonRpcCodeOf(envError.code), message: envError.message };
        this.send(connection, { jsonrpc: '2.0', id: null, error });
        return;
      }
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

  /** The message's JSON, checked for size and frame type; done on arrival, so an llm_reply can skip the queue. */
  private decode(data: RawData, isBinary: boolean): Decoded {
    try {
      const text = rawToString(data);
      if (Buffer.byteLength(text) > this.config.MAX_BODY_BYTES) {
        throw new EnvError(
          'PAYLOAD_TOO_LARGE',
          `message of ${Buffer.byteLength(text)} bytes is over the limit of ${this.config.MAX_BODY_BYTES} bytes`,
        );
      }
      if (isBinary) throw new EnvError('INVALID_JSON', 'binary frames are not accepted; send JSON text');
      try {
        return { json: JSON.parse(text) };
      } catch (error) {
        throw new EnvError('INVALID_JSON', `message is not valid JSON: ${(error as Error).message}`);
      }
    } catch (error) {
      return { error };
    }
  }

  private async handle(connection: Connection, json: unknown): Promise<WsOutgoing | JsonRpcResponse | null> {
    const { session } = connection;
    if (connection.endpoint === '/mcp') return (await this.mcp.handle(json, this.mcpSession(connection))).body ?? null;
    const message = parseInput(WsIncomingSchema, json, 'message');
    switch (message.type) {
      case 'reset': {
        const request = parseInput(EnvResetRequestSchema, message.data ?? {}, 'data');
        return { type: 'observation', data: await session.reset(request) };
      }
      case 'step': {
        const step = parseInput(WsStepDataSchema, message.data, 'data');
        return { type: 'observation', data: await session.step(step) };
      }
      case 'state':
        return { type: 'state', data: session.state() };
      case 'close':
        await session.endEpisode();
        connection.socket.close(1000, 'closed by client');
        return null;
      case 'mcp': {
        const reply = await this.mcp.handle(message.data, this.mcpSession(connection));
        return reply.body === undefined ? null : { type: 'mcp', data: reply.body };
      }
      case 'llm_reply':
        session.answerLlm(parseInput(SessionLlmReplySchema, message.data, 'data'));
        return null;
      default:
        throw new EnvError(
          'UNKNOWN_TYPE',
          `unknown message type "${message.type}"; expected one of ${WS_MESSAGE_TYPES.join(', ')}`,
        );
    }
  }

  private mcpSession(connection: Connection): McpSession {
    const { session } = connection;
    return {
      owner: session.slot,
      episodeId: () => session.episodeId,
      reset: async (request) => {
        const reply = await session.reset(request);
        return { episodeId: reply.observation.episode_id, reply };
      },
    };
  }

  private send(connection: Connection, message: WsOutgoing | JsonRpcResponse): void {
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.send(JSON.stringify(message));
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

/** An "llm_reply" message: answered out of turn, since the step it serves holds the session's queue. */
function isLlmReply(json: unknown): boolean {
  return typeof json === 'object' && json !== null && (json as { type?: unknown }).type === 'llm_reply';
}
