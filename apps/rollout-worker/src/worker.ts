import { createLogger, type Logger } from '@fathom/observability';
import { EvalRepository, RunRepository } from '@fathom/persistence';
import { handlerFor, JobProducer, subscribeEvent } from '@fathom/queue';
import { PolicyClient } from '@fathom/rpc';
import { EndedRuns, runtimeConfigOf, startWorkerService, type WorkerService } from '@fathom/runtime';
import { OpenEnvSandbox, SandboxPool } from '@fathom/sandbox';
import { RunContextCache } from '@fathom/training';
import type { RolloutWorkerConfig } from './config';
import { checkpointModelLoader } from './inference/inference.model';
import { inferenceServing } from './inference/inference.server';
import { InferenceService } from './inference/inference.service';
import { EvalService } from './eval/eval.service';
import { RolloutMetrics } from './metrics';
import { PolicyCache } from './policy.cache';
import { FrozenPolicyCache } from './frozen-policy.cache';
import { RolloutService } from './rollout.service';

/**
 * How long a rollout group waits for the other groups of its step to arrive before its batch starts: the worker
 * takes its CONCURRENCY jobs within milliseconds of each other when they are waiting.
 */
const BATCH_WINDOW_MS = 25;

/**
 * Starts a rollout worker: consumes the `rollout` queue with CONCURRENCY jobs at once (and the `eval` queue, one
 * evaluation at a time, in the same sandbox pool), keeps policy versions
 * cached and retires old ones on `policy.updated`, serves /health and /metrics, and serves gRPC Inference (the
 * env-service's llm() sub-calls) with INFERENCE_CHECKPOINT on INFERENCE_PORT. close() drains running groups
 * for DRAIN_TIMEOUT_MS, releases the rest to other workers, then closes every connection.
 */
export function startRolloutWorker(
  config: RolloutWorkerConfig,
  logger: Logger = createLogger({ service: 'rollout-worker', level: config.LOG_LEVEL }),
): Promise<WorkerService> {
  return startWorkerService({
    name: 'rollout-worker',
    config,
    logger,
    infra: { healthQueue: 'rollout', lockDurationMs: config.JOB_LOCK_MS, stalledIntervalMs: config.STALLED_CHECK_MS },
    build: async ({ registry, transport, prisma }) => {
      const policyClient = new PolicyClient(config.POLICY_ADDRESS, {
        deadlineMs: config.POLICY_TIMEOUT_MS,
        token: config.GRPC_TOKEN,
      });
      const runtime = runtimeConfigOf(config);
      const policies = new PolicyCache(policyClient, runtime);
      const frozen = new FrozenPolicyCache(runtime);
      const sandbox =
        config.ENV_URL === undefined
          ? await SandboxPool.start({ workers: config.SANDBOX_WORKERS })
          : new OpenEnvSandbox(config.ENV_URL, { token: config.ENV_TOKEN });
      const runs = new RunRepository(prisma);
      const endedRuns = new EndedRuns({ source: runs, transport, logger });
      await endedRuns.listen();
      const service = new RolloutService({
        runs: endedRuns,
        contexts: new RunContextCache(runs),
        policies,
        frozen,
        sandbox,
        environment: config.ENV_URL !== undefined,
        producer: new JobProducer(transport),
        metrics: new RolloutMetrics(registry),
        batching: { maxGroups: config.CONCURRENCY, windowMs: BATCH_WINDOW_MS },
      });
      const evals = new EvalService({ sandbox, results: new EvalRepository(prisma), runtime });
      const inference = new InferenceService(checkpointModelLoader(config.INFERENCE_CHECKPOINT, runtime));
      const unsubscribe = await subscribeEvent(
        transport,
        'policy.updated',
        (event) => {
          void policies.retireBefore(event.runId, event.policyVersion);
        },
        logger,
      );
      return {
        queues: ['rollout', 'eval'],
        handlers: [
          handlerFor('rollout.group', (job, context) => service.handle(job, context.logger, context.signal)),
          handlerFor('eval.run', (job, context) => evals.handle(job, context.logger)),
        ],
        concurrency: { rollout: config.CONCURRENCY, eval: 1 },
        drainTimeoutMs: config.DRAIN_TIMEOUT_MS,
        metricsQueues: ['rollout', 'eval'],
        grpc: { port: config.INFERENCE_PORT, ...inferenceServing(inference) },
        ready: {
          inference_checkpoint: config.INFERENCE_CHECKPOINT,
          policy_address: config.POLICY_ADDRESS,
          env_url: config.ENV_URL ?? null,
        },
        close: async () => {
          await unsubscribe();
          await endedRuns.close();
          await policies.close();
          await frozen.close();
          policyClient.close();
          await sandbox.close();
          await inference.close();
        },
      };
    },
  });
}
