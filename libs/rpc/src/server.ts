import * as grpc from '@grpc/grpc-js';

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
