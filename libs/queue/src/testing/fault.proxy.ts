import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a real server (Postgres, Redis) that can cut it off: `cut()` drops every connection and
 * stops listening, so clients get ECONNRESET, then ECONNREFUSED, exactly as when the server is down; `restore()`
 * listens again on the same port. For outage tests against the real thing.
 */
export class FaultProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<FaultProxy> {
    const proxy = new FaultProxy(target.host, target.port);
    await proxy.restore();
    return proxy;
  }

  /** The proxy's own port on 127.0.0.1. */
  get listenPort(): number {
    return this.port;
  }

  /** Listens (again, on the same port once one was picked) and forwards new connections to the target. */
  async restore(): Promise<void> {
    if (this.server !== null) return;
    const server = createServer((client) => {
      const upstream = createConnection({ host: this.targetHost, port: this.targetPort });
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Drops every open connection and refuses new ones until `restore()`. */
  async cut(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
