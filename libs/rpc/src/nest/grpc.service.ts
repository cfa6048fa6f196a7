import { Module, type DynamicModule, type Provider, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { Logger, NestJsonLogger } from '@fathom/observability';
import { GrpcTransport, type GrpcTransportOptions } from './grpc.transport';

export interface GrpcServiceOptions extends GrpcTransportOptions {
  /** Controllers whose `@GrpcMethod`/`@GrpcStreamCall` methods answer the services' calls. */
  controllers: Type[];
  /** What the controllers inject besides the `Logger`, which is provided. */
  providers?: Provider[];
}

/** A running gRPC service: its bound port and its Nest microservice. */
export interface GrpcServiceHandle {
  port: number;
  app: INestMicroservice;
  /** Answers new calls UNAVAILABLE, lets calls in flight finish (SHUTDOWN_GRACE_MS at most), runs the shutdown hooks. */
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
 * Starts a gRPC server as a Nest microservice on `GrpcTransport`: the worker services' Policy, Reward and Inference
 * servers (the env-service serves its Env controller on the same transport beside its HTTP application).
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
