import type { QueueName } from '@fathom/contracts';
import type { LogFields, Logger } from '@fathom/observability';
import { JobConsumer, QueueMetrics, type HandlerRegistration } from '@fathom/queue';
import { startOpsApp, type OpsApp } from './ops.module';
import { createServiceInfra, type ServiceInfra } from './service.infra';

/** The config fields every worker service reads (its schema spreads `serviceEnvShape`). */
export interface WorkerServiceConfig {
  HOST: string;
  HTTP_PORT: number;
  REDIS_URL: string;
  QUEUE_PREFIX: string;
  DATABASE_URL: string;
  INFRA_RETRY_S: number;
}

/** A gRPC server a worker service runs beside its consumer. */
export interface GrpcServerHandle {
  port: number;
  close(): Promise<void>;
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
  grpc: GrpcServerHandle;
  /** Fields of the "started" log line besides the ports. */
  ready?: LogFields;
  /** Runs once the consumer has started (the learner's run scheduler). */
  start?(): void;
  /** Runs before the consumer closes (the learner stops taking up runs and ends its step). */
  stop?(): Promise<void>;
  /** Closes what the parts hold, after the consumer and the gRPC server and before the connections. */
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
  ops: OpsApp;
  grpcPort: number;
  /** Stops the service in its order: `stop`, the consumer (drained), gRPC, `close`, /health and /metrics, connections. */
  close(): Promise<void>;
}

/**
 * The one skeleton of the learner, the rollout workers and the reward-service: the metrics registry and the Redis
 * and Postgres connections (`createServiceInfra`), the typed queue consumer of the parts' jobs, their gRPC server,
 * and `OpsModule` (/health, /metrics) as the service's Nest application; the consumer starts last, once everything
 * it needs is up, and `close` undoes it all in reverse. A start that fails closes what it had opened.
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
  const closeParts = async () => {
    await parts.grpc.close();
    await parts.close?.();
  };
  let consumer: JobConsumer;
  let ops: OpsApp;
  try {
    consumer = new JobConsumer({
      transport,
      queues: parts.queues,
      handlers: parts.handlers,
      concurrency: parts.concurrency,
      drainTimeoutMs: parts.drainTimeoutMs,
      transientRetryMs: config.INFRA_RETRY_S * 1000,
      logger,
      metrics: new QueueMetrics(registry, transport, { queues: parts.metricsQueues }),
    });
    ops = await startOpsApp({ host: config.HOST, port: config.HTTP_PORT, registry, checks: infra.checks, logger });
  } catch (error) {
    await closeParts().catch(() => undefined);
    await infra.close().catch(() => undefined);
    throw error;
  }
  consumer.start();
  parts.start?.();
  logger.info(`${spec.name} started`, { http_port: ops.port, grpc_port: parts.grpc.port, ...parts.ready });
  return {
    ops,
    grpcPort: parts.grpc.port,
    close: async () => {
      await parts.stop?.();
      await consumer.close();
      await closeParts();
      await ops.close();
      await infra.close();
    },
  };
}
