import 'reflect-metadata';
import { Module, type BeforeApplicationShutdown, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { QueueName } from '@fathom/contracts';
import { Logger, NestJsonLogger, type LogFields } from '@fathom/observability';
import { serveGrpc, type GrpcServing } from '@fathom/rpc';
import { JobConsumer, QueueMetrics, type HandlerRegistration } from '@fathom/queue';
import type { AddressInfo } from 'node:net';
import { OpsModule } from './ops.module';
import { createServiceInfra, type ServiceInfra } from './service.infra';

/** The config fields every worker service reads (its schema spreads `serviceEnvShape`). */
export interface WorkerServiceConfig {
  HOST: string;
  GRPC_HOST: string;
  GRPC_TOKEN?: string;
  HTTP_PORT: number;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  DATABASE_URL: string;
  INFRA_RETRY_S: number;
}

/** What a worker service builds on its connections: the jobs it consumes, its gRPC server, its own start and stop. */
export interface WorkerParts {
  queues: readonly QueueName[];
  handlers: readonly HandlerRegistration[];
  concurrency: Partial<Record<QueueName, number>>;
  /** How long the consumer's close lets running jobs finish before it releases them to other workers. */
  drainTimeoutMs?: number;
  /** The queues whose counts `/metrics` reports (default: every queue). */
  metricsQueues?: readonly QueueName[];
  /** What its gRPC server serves, on `port` (0: any free port), beside /health and /metrics; absent: no gRPC server. */
  grpc?: GrpcServing & { port: number };
  /** Fields of the "started" log line besides the ports. */
  ready?: LogFields;
  /** Runs once the consumer has started (the learner's run scheduler). */
  start?(): void;
  /** Runs before the consumer closes (the learner stops taking up runs and ends its step). */
  stop?(): Promise<void>;
  /** Closes what the parts hold, after the consumer and the servers and before the connections. */
  close?(): Promise<void>;
}

export interface WorkerServiceSpec<C extends WorkerServiceConfig> {
  /** The `service` label of its metrics, and the name its log lines carry. */
  name: string;
  config: C;
  logger: Logger;
  infra: Parameters<typeof createServiceInfra>[3];
  build(infra: ServiceInfra): Promise<WorkerParts>;
}

export interface WorkerService {
  /** The port of /health and /metrics. */
  httpPort: number;
  /** The port of its gRPC server; null when it serves no gRPC. */
  grpcPort: number | null;
  /** Stops the service in its order: `stop`, the consumer (drained), gRPC and /health, `close`, the connections. */
  close(): Promise<void>;
}

/**
 * A worker service's start and stop as Nest lifecycle hooks: before the application's servers (HTTP and gRPC) close,
 * the parts' `stop` and the consumer (drained); after them, the parts and the connections.
 */
export class WorkerLifecycle implements BeforeApplicationShutdown, OnApplicationShutdown {
  constructor(
    private readonly consumer: JobConsumer,
    private readonly parts: WorkerParts,
    private readonly infra: ServiceInfra,
  ) {}

  /** Starts taking jobs, then the parts' own work: called once the HTTP endpoints listen. */
  start(): void {
    this.consumer.start();
    this.parts.start?.();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.parts.stop?.();
    await this.consumer.close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.parts.close?.();
    await this.infra.close();
  }
}

/**
 * A worker service as a Nest module: its typed consumer and lifecycle as providers, `OpsModule` its HTTP surface, its
 * gRPC controllers (served on `GrpcTransport`) and what they inject.
 */
@Module({})
export class WorkerServiceModule {
  static create(
    infra: ServiceInfra,
    consumer: JobConsumer,
    lifecycle: WorkerLifecycle,
    grpc: GrpcServing | undefined,
    logger: Logger,
  ): DynamicModule {
    return {
      module: WorkerServiceModule,
      imports: [OpsModule.create({ registry: infra.registry, checks: infra.checks, logger })],
      controllers: grpc?.controllers ?? [],
      providers: [
        { provide: JobConsumer, useValue: consumer },
        { provide: WorkerLifecycle, useValue: lifecycle },
        { provide: Logger, useValue: logger },
        ...(grpc?.providers ?? []),
      ],
    };
  }
}

/**
 * The one skeleton of the learner, the rollout workers and the reward-service: the metrics registry and the Redis
 * and Postgres connections (`createServiceInfra`), the service's parts built on them, and a Nest application
 * (`WorkerServiceModule`) holding the typed queue consumer of the parts' jobs, serving /health and /metrics, and
 * serving the parts' gRPC controllers on `GrpcTransport` (a hybrid application). The consumer starts once the
 * endpoints listen; `close` is the application's close, whose shutdown hooks stop
 * everything in reverse (`WorkerLifecycle`). A start that fails closes what it had opened.
 */
export async function startWorkerService<C extends WorkerServiceConfig>(
  spec: WorkerServiceSpec<C>,
): Promise<WorkerService> {
  const { config, logger } = spec;
  const infra = createServiceInfra(spec.name, config, logger, spec.infra);
  const { registry, transport } = infra;
  const parts = await spec.build(infra).catch(async (error: unknown) => {
    await infra.close().catch(() => undefined);
    throw error;
  });
  let app: NestExpressApplication | undefined;
  let lifecycle: WorkerLifecycle;
  let grpcPort: number | null = null;
  try {
    const consumer = new JobConsumer({
      transport,
      queues: parts.queues,
      handlers: parts.handlers,
      concurrency: parts.concurrency,
      drainTimeoutMs: parts.drainTimeoutMs,
      transientRetryMs: config.INFRA_RETRY_S * 1000,
      logger,
      metrics: new QueueMetrics(registry, transport, { queues: parts.metricsQueues }),
    });
    lifecycle = new WorkerLifecycle(consumer, parts, infra);
    app = await NestFactory.create<NestExpressApplication>(
      WorkerServiceModule.create(infra, consumer, lifecycle, parts.grpc, logger),
      { bodyParser: false, logger: new NestJsonLogger(logger) },
    );
    if (parts.grpc !== undefined) {
      grpcPort = await serveGrpc(app, {
        host: config.GRPC_HOST,
        port: parts.grpc.port,
        services: parts.grpc.services,
        logger,
        token: config.GRPC_TOKEN,
      });
    }
    await app.listen(config.HTTP_PORT, config.HOST);
  } catch (error) {
    if (app !== undefined) await app.close().catch(() => undefined);
    else {
      await parts.close?.().catch(() => undefined);
      await infra.close().catch(() => undefined);
    }
    throw error;
  }
  lifecycle.start();
  const port = (app.getHttpServer().address() as AddressInfo).port;
  logger.info(`${spec.name} started`, {
    http_port: port,
    ...(grpcPort === null ? {} : { grpc_port: grpcPort }),
    ...parts.ready,
  });
  let closed: Promise<void> | undefined;
  return { httpPort: port, grpcPort, close: () => (closed ??= app.close()) };
}
