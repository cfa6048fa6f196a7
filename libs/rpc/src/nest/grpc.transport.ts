import * as grpc from '@grpc/grpc-js';
import { Server, GrpcMethodStreamingType, type CustomTransportStrategy } from '@nestjs/microservices';
import type { Logger } from '@fathom/observability';
import { lastValueFrom } from 'rxjs';
import { requireToken } from '../auth';
import { loadService, type ProtoFile } from '../protos';
import { bindServer, createServer, shutdownServer } from '../server';

/** A service of a proto file that a transport serves: `{ proto: 'policy.proto', name: 'fathom.policy.v1.Policy' }`. */
export interface GrpcServiceSpec {
  proto: ProtoFile;
  /** The fully qualified service name; handlers name it without its package (`@GrpcMethod('Policy', 'GetLatest')`). */
  name: string;
}

export interface GrpcTransportOptions {
  /** The address to bind: a service's GRPC_HOST, loopback unless a container's deployment sets 0.0.0.0. */
  host: string;
  /** 0 binds any free port; `port` is the bound one once listening. */
  port: number;
  services: readonly GrpcServiceSpec[];
  logger: Logger;
  /** grpc-js server options (message size limits). */
  serverOptions?: grpc.ServerOptions;
  /**
   * The shared token (GRPC_TOKEN): when set, a call without `authorization: Bearer <token>` metadata is refused
   * UNAUTHENTICATED before its handler runs (`requireToken`). Unset: every caller that reaches the port is served.
   */
  token?: string;
}

/** A handler as Nest's router proxy hands it over: the controller method with its filters, pipes and interceptors. */
type NestHandler = (...args: unknown[]) => Promise<unknown>;

/**
 * FATHOM's gRPC server as a Nest transport (`strategy` of a microservice): the handlers are controller methods,
 * `@GrpcMethod(service, rpc)` for a unary call (given the request, or `@Payload()` and `@GrpcCall()`; what it returns,
 * resolves to or emits last is the reply) and `@GrpcStreamCall(service, rpc)` for a streaming one, server or
 * bidirectional (given the call, which it reads and writes itself, so that it can wait for the stream to drain). What
 * a handler throws reaches the controller's exception filters; a filter answers with a gRPC status
 * (`{ code, details }`) and anything else is INTERNAL. The server is `createServer`'s (undecodable bytes are
 * INVALID_ARGUMENT, never INTERNAL); a method of a served service without a handler is a start-up error; once `close`
 * has begun, new calls are UNAVAILABLE. With a `token`, calls that do not carry it are UNAUTHENTICATED.
 */
export class GrpcTransport extends Server implements CustomTransportStrategy {
  private server: grpc.Server | undefined;
  private boundPort: number | undefined;
  private closing = false;

  constructor(private readonly options: GrpcTransportOptions) {
    super();
  }

  /** The bound port, once listening. */
  get port(): number {
    if (this.boundPort === undefined) throw new Error('the gRPC transport is not listening');
    return this.boundPort;
  }

  async listen(callback: (error?: unknown) => void): Promise<void> {
    try {
      const { serverOptions = {}, token } = this.options;
      const interceptors = [
        ...(token === undefined ? [] : [requireToken(token)]),
        ...(serverOptions.interceptors ?? []),
      ];
      const server = createServer({ ...serverOptions, interceptors });
      for (const spec of this.options.services) {
        const definition = serviceDefinition(spec);
        server.addService(definition, this.implementation(spec.name, definition));
      }
      this.boundPort = await bindServer(server, this.options.host, this.options.port);
      this.server = server;
      this.options.logger.info('gRPC listening', {
        host: this.options.host,
        port: this.boundPort,
        token: token !== undefined,
        services: this.options.services.map((s) => s.name),
      });
      callback();
    } catch (error) {
      callback(error);
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.server !== undefined) await shutdownServer(this.server);
  }

  on(): never {
    throw new Error('the gRPC transport emits no events');
  }

  unwrap<T>(): T {
    if (this.server === undefined) throw new Error('the gRPC transport is not listening');
    return this.server as T;
  }

  private implementation(service: string, definition: grpc.ServiceDefinition): grpc.UntypedServiceImplementation {
    const shortName = service.slice(service.lastIndexOf('.') + 1);
    const methods: grpc.UntypedServiceImplementation = {};
    for (const [rpc, method] of Object.entries(definition)) {
      const streaming = method.requestStream || method.responseStream;
      const type = streaming ? GrpcMethodStreamingType.PT_STREAMING : GrpcMethodStreamingType.NO_STREAMING;
      const handler = this.getHandlerByPattern(this.normalizePattern({ service: shortName, rpc, streaming: type }));
      if (handler === null) {
        const decorator = streaming ? 'GrpcStreamCall' : 'GrpcMethod';
        throw new Error(
          `no handler for ${method.path}: decorate a controller method @${decorator}('${shortName}', '${rpc}')`,
        );
      }
      methods[rpc] = streaming
        ? this.streamCall(method.path, handler as NestHandler)
        : this.unaryCall(method.path, handler as NestHandler);
    }
    return methods;
  }

  private unaryCall(path: string, handler: NestHandler): grpc.handleUnaryCall<unknown, unknown> {
    return (call, callback) => {
      if (this.closing) return callback(this.unavailable(path));
      this.settle(path, handler(call.request, call.metadata, call)).then(
        (reply) => callback(null, reply),
        (status: grpc.StatusObject) => callback(status),
      );
    };
  }

  private streamCall(path: string, handler: NestHandler) {
    return (call: grpc.ServerWritableStream<unknown, unknown> | grpc.ServerDuplexStream<unknown, unknown>): void => {
      if (this.closing) {
        call.emit('error', this.unavailable(path));
        return;
      }
      this.settle(path, handler(call)).catch((status: grpc.StatusObject) => {
        if (!call.cancelled) call.emit('error', status);
      });
    };
  }

  /** What a handler resolved to (its Observable's last value), or the gRPC status it failed with. */
  private async settle(path: string, result: Promise<unknown>): Promise<unknown> {
    try {
      return await lastValueFrom(this.transformToObservable(await result), { defaultValue: undefined });
    } catch (error) {
      if (isStatus(error)) throw error;
      this.options.logger.error('gRPC handler failed without a status', { method: path, err: error });
      throw { code: grpc.status.INTERNAL, details: `${path}: ${describe(error)}` };
    }
  }

  private unavailable(path: string): Partial<grpc.StatusObject> {
    return { code: grpc.status.UNAVAILABLE, details: `${path}: the server is shutting down` };
  }
}

function serviceDefinition(spec: GrpcServiceSpec): grpc.ServiceDefinition {
  const load = loadService as (file: ProtoFile, name: string) => { service: grpc.ServiceDefinition };
  return load(spec.proto, spec.name).service;
}

function isStatus(value: unknown): value is grpc.StatusObject {
  if (typeof value !== 'object' || value === null) return false;
  const { code, details } = value as Partial<grpc.StatusObject>;
  return typeof code === 'number' && code in grpc.status && typeof details === 'string';
}

function describe(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error) return String(error.message);
  return String(error);
}
