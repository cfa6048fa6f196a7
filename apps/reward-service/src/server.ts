import { createLogger, type Logger } from '@fathom/observability';
import { EpisodeRepository, RunRepository } from '@fathom/persistence';
import { handlerFor, JobProducer } from '@fathom/queue';
import { EndedRuns, startWorkerService, type WorkerService } from '@fathom/runtime';
import { RunContextCache } from '@fathom/training';
import type { RewardServiceConfig } from './config';
import { RewardMetrics } from './metrics';
import { RewardService } from './reward.service';

/**
 * Starts the reward-service: consumes the `reward` queue (CONCURRENCY groups at once), writes Episode rows, feeds
 * the `learn` queue, serves /health + /metrics.
 */
export function startRewardService(
  config: RewardServiceConfig,
  logger: Logger = createLogger({ service: 'reward-service', level: config.LOG_LEVEL }),
): Promise<WorkerService> {
  return startWorkerService({
    name: 'reward-service',
    config,
    logger,
    infra: { healthQueue: 'reward' },
    build: async ({ registry, transport, prisma }) => {
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
      return {
        queues: ['reward'],
        handlers: [handlerFor('reward.group', (job, context) => service.handle(job, context.logger))],
        concurrency: { reward: config.CONCURRENCY },
        drainTimeoutMs: config.DRAIN_TIMEOUT_MS,
        metricsQueues: ['reward'],
        close: () => endedRuns.close(),
      };
    },
  });
}
