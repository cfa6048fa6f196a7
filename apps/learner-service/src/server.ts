import { resolve } from 'node:path';
import { createLogger, type Logger } from '@fathom/observability';
import { PolicyVersionRepository, RunRepository, StepRepository } from '@fathom/persistence';
import { handlerFor, JobProducer } from '@fathom/queue';
import { policyServing } from '@fathom/rpc';
import { runtimeConfigOf, startWorkerService, type WorkerService } from '@fathom/runtime';
import type { LearnerServiceConfig } from './config';
import { GroupInbox } from './group.inbox';
import { LearnerService } from './learner.service';
import { LearnerMetrics } from './metrics';
import { PolicyStore } from './policy.store';

/**
 * Starts the learner-service: the run scheduler (polls Postgres every POLL_INTERVAL_MS), the `learn` queue
 * consumer feeding scored groups to the step that waits for them, gRPC Policy (weights of the newest versions of
 * the run in training) and /health + /metrics. close() stops polling and shuts everything down; a run in training
 * is left `running`, and the next learner resumes it from its last checkpoint, unless it was being stopped: then it
 * becomes `stopped`.
 */
export function startLearnerService(
  config: LearnerServiceConfig,
  logger: Logger = createLogger({ service: 'learner-service', level: config.LOG_LEVEL }),
): Promise<WorkerService> {
  return startWorkerService({
    name: 'learner-service',
    config,
    logger,
    infra: { healthQueue: 'learn' },
    build: async ({ registry, transport, prisma }) => {
      const policies = new PolicyStore();
      const inbox = new GroupInbox();
      const learner = new LearnerService({
        runs: new RunRepository(prisma),
        steps: new StepRepository(prisma),
        policyVersions: new PolicyVersionRepository(prisma),
        producer: new JobProducer(transport),
        transport,
        inbox,
        policies,
        metrics: new LearnerMetrics(registry),
        logger,
        runsDir: resolve(config.RUNS_DIR),
        stepTimeoutMs: config.STEP_TIMEOUT_S * 1000,
        infraRetryMs: config.INFRA_RETRY_S * 1000,
        runtime: runtimeConfigOf(config),
      });
      let polling = true;
      let pollLoop: Promise<void> = Promise.resolve();
      return {
        queues: ['learn'],
        handlers: [
          handlerFor('learn.group', async (group, context) => {
            if (!inbox.deliver(group)) context.logger.info('group of a finished step re-delivered; ignored');
          }),
        ],
        concurrency: { learn: 16 },
        grpc: { port: config.GRPC_PORT, ...policyServing(policies) },
        start: () => {
          pollLoop = (async () => {
            while (polling) {
              await learner.poll().catch((error: unknown) => logger.error('poll failed', { error }));
              await new Promise((r) => setTimeout(r, config.POLL_INTERVAL_MS));
            }
          })();
        },
        stop: async () => {
          polling = false;
          await pollLoop;
          await learner
            .close()
            .catch((error: unknown) => logger.error('could not mark the stopping run stopped', { error }));
        },
      };
    },
  });
}
