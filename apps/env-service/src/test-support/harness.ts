import { checkDocumentedReply } from '@fathom/contracts';
import { sumSamples } from '@fathom/observability';
import * as grpc from '@grpc/grpc-js';
import WebSocket from 'ws';
import { startEnvService, type RunningEnvService } from '../bootstrap';
import { loadConfig } from '../config';
import { loadService } from '@fathom/rpc';
import { ENV_OPERATIONS } from '../http/schemas';
import type { GenerateRequest } from '../inference/inference.client';
import { ScriptedInferenceServer, type ScriptedRead } from './scripted-inference.server';

/** A JSON reply as tests see it: deliberately untyped, since tests assert on its shape field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

/** A running env-service on free ports with a scripted inference server (TEST DOUBLE) behind llm(). */
export interface Harness {
  service: RunningEnvService;
  inference: ScriptedInferenceServer;
  baseUrl: string;
  wsUrl: string;
  grpcAddress: string;
  close(): Promise<void>;
}

/**
 * Starts the service for a test: port 0 everywhere, silent logs, one sandbox worker and no low-priority one. `env`
 * overrides any variable.
 * The scripted inference answers every llm() call with `script(request)` (default: "sub-answer at depth N"), or
 * with a span read by `read` when given (it then has a span reader).
 */
export async function startHarness(
  env: Record<string, string> = {},
  script: (request: GenerateRequest) => string = (r) => `sub-answer at depth ${r.depth}`,
  read?: ScriptedRead,
): Promise<Harness> {
  const inference = new ScriptedInferenceServer(script, read);
  const address = await inference.start();
  const config = loadConfig({
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    GRPC_PORT: '0',
    INFERENCE_ADDRESS: address,
    LOG_LEVEL: 'silent',
    SANDBOX_WORKERS: '1',
    SANDBOX_LOW_PRIORITY_WORKERS: '0',
    ...env,
  });
  const service = await startEnvService(config);
  return {
    service,
    inference,
    baseUrl: `http://127.0.0.1:${service.httpPort}`,
    wsUrl: `ws://127.0.0.1:${service.httpPort}/ws`,
    grpcAddress: `127.0.0.1:${service.grpcPort}`,
    close: async () => {
      await service.close();
      await inference.stop();
    },
  };
}

/**
 * Throws unless a JSON reply matches what `ENV_OPERATIONS` documents for it: the acceptance tests keep the document
 * honest.
 */
export function checkEnvReply(method: string, path: string, status: number, contentType: string, body: unknown) {
  checkDocumentedReply(ENV_OPERATIONS, { method, path, status, contentType, body });
}

/** POST a JSON (or raw string) body; returns status and parsed JSON (or text), checked against the document. */
export async function post(
  baseUrl: string,
  path: string,
  body: unknown,
  raw = false,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  });
  const text = await res.text();
  const reply = { status: res.status, body: text.length > 0 ? safeJson(text) : undefined };
  checkEnvReply('POST', path, res.status, res.headers.get('content-type') ?? '', reply.body);
  return reply;
}

export async function get(baseUrl: string, path: string): Promise<{ status: number; body: Json; contentType: string }> {
  const res = await fetch(`${baseUrl}${path}`);
  const text = await res.text();
  const reply = { status: res.status, body: safeJson(text), contentType: res.headers.get('content-type') ?? '' };
  checkEnvReply('GET', path, reply.status, reply.contentType, reply.body);
  return reply;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The sum of a metric's series on the service's /metrics whose labels include `labels`. */
export async function metricSum(baseUrl: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  return sumSamples((await get(baseUrl, '/metrics')).body, name, labels);
}

/** A WebSocket client that sends a message and awaits the next reply. */
export class WsClient {
  private readonly replies: unknown[] = [];
  private waiters: ((message: unknown) => void)[] = [];

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      const message = JSON.parse(String(data));
      const waiter = this.waiters.shift();
      if (waiter) waiter(message);
      else this.replies.push(message);
    });
  }

  /** Listens before the connection opens: a message sent on accept (a refusal) can arrive with the upgrade itself. */
  static async connect(url: string): Promise<WsClient> {
    const socket = new WebSocket(url);
    const client = new WsClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return client;
  }

  /** Sends `message` (an object is JSON-encoded, a string is sent as is) and resolves with the next reply. */
  request(message: unknown): Promise<Json> {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
    return this.next();
  }

  next(): Promise<Json> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): Promise<void> {
    if (this.socket.readyState === this.socket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.socket.once('close', () => resolve());
      this.socket.close();
    });
  }
}

type Callback = (error: grpc.ServiceError | null, reply: Json) => void;
type Unary = (request: unknown, callback: Callback) => void;

/** A promise-based client of the gRPC Env service. */
export class EnvGrpcClient {
  private readonly client: grpc.Client & Record<'Reset' | 'Step' | 'State' | 'Close', Unary>;

  constructor(address: string) {
    const Env = loadService('env.proto', 'fathom.env.v1.Env');
    this.client = new Env(address, grpc.credentials.createInsecure()) as unknown as EnvGrpcClient['client'];
  }

  call(method: 'Reset' | 'Step' | 'State' | 'Close', request: unknown): Promise<Json> {
    return new Promise((resolve, reject) =>
      this.client[method].call(this.client, request, (error, reply) => (error ? reject(error) : resolve(reply))),
    );
  }

  /** Opens a Session stream. */
  session(): GrpcSessionClient {
    return new GrpcSessionClient(
      (this.client as unknown as { Session(): grpc.ClientDuplexStream<Json, Json> }).Session(),
    );
  }

  /** grpc-js also exposes the Close RPC as `client.close`, shadowing Client#close, hence the explicit prototype call. */
  close(): void {
    grpc.Client.prototype.close.call(this.client);
  }
}

/** A Session stream of the gRPC Env service: send a request, await the next reply; `status` is how the stream ended. */
export class GrpcSessionClient {
  private readonly replies: Json[] = [];
  private waiters: ((reply: Json) => void)[] = [];
  /** The stream's final status: code 0 (OK) when the server ended it normally. */
  readonly status: Promise<grpc.StatusObject>;

  constructor(readonly stream: grpc.ClientDuplexStream<Json, Json>) {
    stream.on('data', (reply: Json) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(reply);
      else this.replies.push(reply);
    });
    stream.on('error', () => undefined);
    this.status = new Promise((resolve) => stream.on('status', resolve));
  }

  request(message: Json): Promise<Json> {
    this.stream.write(message);
    return this.next();
  }

  next(): Promise<Json> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/**
 * A document of about `tokens` estimated tokens (4 characters each) with one needle sentence at relative `depth`.
 * Filler sentences vary so a search has to find the needle rather than the first match of a pattern.
 */
export function longDocument(tokens: number, needle: string, depth = 0.5): string {
  const targetChars = tokens * 4;
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < targetChars - needle.length; i++) {
    const sentence = `Entry ${i}: the ledger for district ${i % 97} lists ${(i * 37) % 1000} crates of assorted goods. `;
    parts.push(sentence);
    length += sentence.length;
  }
  const at = Math.floor(parts.length * depth);
  parts.splice(at, 0, `${needle} `);
  return parts.join('').slice(0, targetChars + needle.length);
}
