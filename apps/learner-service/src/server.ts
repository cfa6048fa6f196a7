import { resolve } from 'node:path';
import { createLogger, type Logger } from '@fathom/observability';
import { PolicyVersionRepository, RunRepository, StepRepository } from '@fathom/persistence';
import { handlerFor, JobConsumer, JobProducer, QueueMetrics } from '@fathom/queue';
import { startPolicyServer } from '@fathom/rpc';
import { createServiceInfra, runtimeConfigOf, startOpsApp, type OpsApp } from '@fathom/runtime';
import type { LearnerServiceConfig } from './config';
import { GroupInbox } from './group.inbox';
import { LearnerService } from './learner.service';
import { LearnerMetrics } from './metrics';
import { PolicyStore } from './policy.store';

export interface LearnerServiceHandle {
  ops: OpsApp;
  grpcPort: number;
  learner: LearnerService;
  close(): Promise<void>;
}

/**
 * Starts the learner-service: the run scheduler (polls Postgres every POLL_INTERVAL_MS), the `learn` queue
 * consumer feeding scored groups to the step that waits for them, gRPC Policy (weights of the newest versions of
 * the run in training) and /health + /metrics. close() stops polling and shuts everything down; a run in training
 * is left `running`, and the next learner resumes it from its last checkpoint, unless it was being stopped: then it
 * becomes `stopped`.
 */
export async function startLearnerService(
  config: LearnerServiceConfig,
  logger: Logger = createLogger({ service: 'learner-service', level: config.LOG_LEVEL }),
): Promise<LearnerServiceHandle> {
  const infra = createServiceInfra('learner-service', config, logger, { healthQueue: 'learn' });
  const { registry, transport, prisma } = infra;
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
  const consumer = new JobConsumer({
    transport,
    queues: ['learn'],
    handlers: [
      handlerFor('learn.group', async (group, context) => {
        if (!inbox.deliver(group)) context.logger.info('group of a finished step re-delivered; ignored');
      }),
    ],
    concurrency: { learn: 16 },
    transientRetryMs: config.INFRA_RETRY_S * 1000,
    logger,
    metrics: new QueueMetrics(registry, transport),
  });
  const grpc = await startPolicyServer({ host: config.HOST, port: config.GRPC_PORT, source: policies, logger });
  const ops = await startOpsApp({ host: config.HOST, port: config.HTTP_PORT, registry, checks: infra.checks, logger });
  consumer.start();
  let polling = true;
  const pollLoop = (async () => {
    while (polling) {
      await learner.poll().catch((error: unknown) => logger.error('poll failed', { error }));
      await new Promise((r) => setTimeout(r, config.POLL_INTERVAL_MS));
    }
  })();
  logger.info('learner-service started', { http_port: ops.port, grpc_port: grpc.port });
  return {
    ops,
    grpcPort: grpc.port,
    learner,
    close: async () => {
      polling = false;
      await pollLoop;
      await learner
        .close()
        .catch((error: unknown) => logger.error('could not mark the stopping run stopped', { error }));
      await consumer.close();
      await grpc.close();
      await ops.close();
      await infra.close();
    },
  };
}
