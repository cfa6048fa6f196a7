import type { QueueName } from '@fathom/contracts';
import { createMetricsRegistry, type Logger } from '@fathom/observability';
import { createPrismaClient, type PrismaClient } from '@fathom/persistence';
import { BullMqTransport, type BullMqTransportOptions } from '@fathom/queue';
import type { Registry } from 'prom-client';
import { dependencyChecks, type HealthCheck } from './ops.module';

/** What every worker service connects to, and the health checks of those connections. */
export interface ServiceInfra {
  registry: Registry;
  transport: BullMqTransport;
  prisma: PrismaClient;
  /** Redis (a count of `queue`) and Postgres (`SELECT 1`), for /health. */
  checks: HealthCheck[];
  /** Closes the queue connections and the database pool. */
  close(): Promise<void>;
}

/**
 * The metrics registry, BullMQ transport and Prisma client of a service, built from its validated config. Queue
 * connection errors are logged (never unhandled).
 */
export function createServiceInfra(
  service: string,
  config: { REDIS_URL: string; QUEUE_PREFIX: string; DATABASE_URL: string },
  logger: Logger,
  options: { healthQueue: QueueName } & Pick<BullMqTransportOptions, 'lockDurationMs' | 'stalledIntervalMs'>,
): ServiceInfra {
  const transport = new BullMqTransport({
    redisUrl: config.REDIS_URL,
    prefix: config.QUEUE_PREFIX,
    lockDurationMs: options.lockDurationMs,
    stalledIntervalMs: options.stalledIntervalMs,
    onError: (error, where) => logger.error('queue connection error', { where, error }),
  });
  const prisma = createPrismaClient(config.DATABASE_URL);
  return {
    registry: createMetricsRegistry({ service }),
    transport,
    prisma,
    checks: dependencyChecks({ transport, prisma, queue: options.healthQueue }),
    close: async () => {
      await transport.close();
      await prisma.$disconnect();
    },
  };
}
