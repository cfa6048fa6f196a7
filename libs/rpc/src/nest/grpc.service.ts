import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { Logger, NestJsonLogger } from '@fathom/observability';
import { GrpcTransport, type GrpcServiceSpec, type GrpcTransportOptions } from './grpc.transport';

/** What a gRPC server serves: its services, the controllers that answer them, and what those inject. */
export interface GrpcServing {
  services: readonly GrpcServiceSpec[];
  /** Controllers whose `@GrpcMethod`/`@GrpcStreamCall` methods answer the services' calls. */
  controllers: Type[];
  /** What the controllers inject besides the `Logger`, which the application provides. */
  providers?: Provider[];
}

export type GrpcServiceOptions = GrpcTransportOptions & GrpcServing;

/** A running gRPC service: its bound port and its Nest microservice. */
export interface GrpcServiceHandle {
  port: number;
  app: INestMicroservice;
  /** Answers new calls UNAVAILABLE, lets calls in flight finish (SHUTDOWN_GRACE_MS at most), runs shutdown hooks. */
  close(): Promise<void>;
}

@Module({})
class GrpcServiceModule {
  static create(options: GrpcServiceOptions): DynamicModule {
    return {
      module: GrpcServiceModule,
      controllers: options.controllers,
      providers: [{ provide: Logger, useValue: options.logger }, ...(options.providers ?? [])],
    };
  }
}

/**
 * Serves gRPC from a service's own Nest application (a hybrid application: its HTTP routes and its gRPC controllers):
 * connects `GrpcTransport` to it and starts it; resolves with the bound port. `app.close()` closes it.
 */
export async function serveGrpc(app: INestApplication, options: GrpcTransportOptions): Promise<number> {
  const transport = new GrpcTransport(options);
  app.connectMicroservice({ strategy: transport });
  await app.startAllMicroservices();
  return transport.port;
}

/**
 * Serves controllers alone, as a Nest microservice on `GrpcTransport` (the tests and benches of a gRPC service). The
 * services themselves serve theirs from their one Nest application (`serveGrpc`): the env-service, and through
 * `startWorkerService` the learner (Policy) and the rollout workers (Inference).
 */
export async function startGrpcService(options: GrpcServiceOptions): Promise<GrpcServiceHandle> {
  const transport = new GrpcTransport(options);
  const app = await NestFactory.createMicroservice(GrpcServiceModule.create(options), {
    strategy: transport,
    logger: new NestJsonLogger(options.logger),
    abortOnError: false,
  });
  try {
    await app.listen();
  } catch (error) {
    await app.close();
    throw error;
  }
  return { port: transport.port, app, close: () => app.close() };
}
