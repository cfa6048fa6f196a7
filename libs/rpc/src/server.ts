import * as grpc from '@grpc/grpc-js';

/**
 * What a request's bytes decode to when they are not a protobuf message of the method's type. A unary or
 * server-streaming call never sees one (the interceptor below answers it); a handler of a request stream does, as one
 * of the stream's messages, and answers it as it answers any bad message, so the stream can go on.
 */
export class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/**
 * grpc-js answers a request whose bytes are not a protobuf message of the method's type with INTERNAL ("Error
 * deserializing request"), as if the server had failed, and no interceptor sees that status. Here such bytes decode
 * to an `UndecodableRequest` instead.
 */
function tolerantDecoding(service: grpc.ServiceDefinition): grpc.ServiceDefinition {
  return Object.fromEntries(
    Object.entries(service).map(([name, method]) => [
      name,
      {
        ...method,
        requestDeserialize: (bytes: Buffer): unknown => {
          try {
            return method.requestDeserialize(bytes);
          } catch (error) {
            return new UndecodableRequest(error instanceof Error ? error.message : String(error));
          }
        },
      },
    ]),
  );
}

/** Answers an undecodable request of a unary or server-streaming call INVALID_ARGUMENT, naming the method. */
const refuseUndecodable: grpc.ServerInterceptor = (method, call) =>
  new grpc.ServerInterceptingCall(call, {
    start(next) {
      next({
        onReceiveMessage(message, forward) {
          if (!(message instanceof UndecodableRequest) || method.requestStream) return forward(message);
          call.sendStatus({
            code: grpc.status.INVALID_ARGUMENT,
            details: `the request is not a protobuf message that ${method.path} accepts (${message.reason})`,
          });
        },
      });
    },
  });

class FathomServer extends grpc.Server {
  override addService(service: grpc.ServiceDefinition, implementation: grpc.UntypedServiceImplementation): void {
    super.addService(tolerantDecoding(service), implementation);
  }
}

/**
 * A gRPC server as every FATHOM service runs one: bytes that do not decode are INVALID_ARGUMENT, never INTERNAL (a
 * request stream's handler gets them as an `UndecodableRequest`).
 */
export function createServer(options: grpc.ServerOptions = {}): grpc.Server {
  return new FathomServer({ ...options, interceptors: [refuseUndecodable, ...(options.interceptors ?? [])] });
}

/** How long a closing server waits for in-flight calls before cancelling them. */
export const SHUTDOWN_GRACE_MS = 2_000;

/** Binds an insecure server on host:port (0 = any free port) and resolves with the bound port. */
export function bindServer(server: grpc.Server, host: string, port: number): Promise<number> {
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve, reject) =>
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(new Error(`cannot bind gRPC server to ${address}: ${err.message}`)) : resolve(bound),
    ),
  );
}

/** Stops accepting calls, lets in-flight ones finish for up to `graceMs`, then cancels what is left. */
export function shutdownServer(server: grpc.Server, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
