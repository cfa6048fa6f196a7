import { createLogger, type Logger } from '@fathom/observability';
import { EpisodeRepository, RunRepository } from '@fathom/persistence';
import { handlerFor, JobConsumer, JobProducer, QueueMetrics } from '@fathom/queue';
import { startRewardServer } from '@fathom/rpc';
import { createServiceInfra, EndedRuns, startOpsApp, type OpsApp } from '@fathom/runtime';
import { RunContextCache } from '@fathom/training';
import type { RewardServiceConfig } from './config';
import { RewardMetrics } from './metrics';
import { RewardService } from './reward.service';

export interface RewardServiceHandle {
  ops: OpsApp;
  grpcPort: number;
  close(): Promise<void>;
}

/**
 * Starts the reward-service: consumes the `reward` queue (CONCURRENCY groups at once), writes Episode rows, feeds
 * the `learn` queue, serves gRPC Reward.ScoreGroup and /health + /metrics.
 */
export async function startRewardService(
  config: RewardServiceConfig,
  logger: Logger = createLogger({ service: 'reward-service', level: config.LOG_LEVEL }),
): Promise<RewardServiceHandle> {
  const infra = createServiceInfra('reward-service', config, logger, { healthQueue: 'reward' });
  const { registry, transport, prisma } = infra;
  const runs = new RunRepository(prisma);
  const endedRuns = new EndedRuns({ source: runs, transport, logger });
  await endedRuns.listen();
  const service = new RewardService({
    runs: endedRuns,
    contexts: new RunContextCache(runs),
    episodes: new EpisodeRepository(prisma),
    producer: new JobProducer(transport),
    metrics: new RewardMetrics(registry),
  });
  const consumer = new JobConsumer({
    transport,
    queues: ['reward'],
    handlers: [handlerFor('reward.group', (job, context) => service.handle(job, context.logger))],
    concurrency: { reward: config.CONCURRENCY },
    drainTimeoutMs: config.DRAIN_TIMEOUT_MS,
    transientRetryMs: config.INFRA_RETRY_S * 1000,
    logger,
    metrics: new QueueMetrics(registry, transport, { queues: ['reward'] }),
  });
  const grpc = await startRewardServer({ host: config.HOST, port: config.GRPC_PORT, logger });
  const ops = await startOpsApp({ host: config.HOST, port: config.HTTP_PORT, registry, checks: infra.checks, logger });
  consumer.start();
  logger.info('reward-service started', { http_port: ops.port, grpc_port: grpc.port });
  return {
    ops,
    grpcPort: grpc.port,
    close: async () => {
      await consumer.close();
      await endedRuns.close();
      await grpc.close();
      await ops.close();
      await infra.close();
    },
  };
}
