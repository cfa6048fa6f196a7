import type { GroupRollout, RewardGroupJob, RolloutGroupJob } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { RunRepository } from '@fathom/persistence';
import { PermanentJobError, type JobProducer } from '@fathom/queue';
import { EpisodeRunner, SamplerPolicy, episodeTaskOf, type EpisodeTask } from '@fathom/rlm';
import type { SandboxPool } from '@fathom/sandbox';
import { frozenRoleOf, rolePolicies, UnknownRunError, type RunContextCache } from '@fathom/training';
import type { PolicyCache } from './policy.cache';
import type { FrozenPolicyCache } from './frozen-policy.cache';
import { GroupBatcher } from './group.batcher';
import type { RolloutMetrics } from './metrics';

export interface RolloutServiceDeps {
  runs: Pick<RunRepository, 'endedStatus'>;
  contexts: Pick<RunContextCache, 'task'>;
  policies: Pick<PolicyCache, 'with' | 'newestVersion'>;
  /** The frozen policies of runs that name a `model.readerCheckpoint` or a `model.rootCheckpoint`. */
  frozen: Pick<FrozenPolicyCache, 'policy'>;
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  /** Whether `sandbox` is an OpenEnv environment (ENV_URL), which a run scored by its environment needs. */
  environment: boolean;
  producer: Pick<JobProducer, 'enqueue'>;
  metrics: RolloutMetrics;
  /**
   * Groups of one run, policy version and G that arrive together run as one batch of up to `maxGroups` (the worker's
   * CONCURRENCY), each waiting at most `windowMs` for the others (`GroupBatcher`). Default: one group at a time.
   */
  batching?: { maxGroups: number; windowMs: number };
}

/**
 * One rollout.group job: G episodes of one task with the policy version the job names, handed on to the reward
 * queue. The group's seed comes from the job, so a retried job samples the same episodes, and the reward job's id
 * is the group's, so a retry never scores a group twice.
 */
export class RolloutService {
  private readonly batcher: GroupBatcher<{ task: EpisodeTask; seed: number }, GroupRollout>;

  constructor(private readonly deps: RolloutServiceDeps) {
    this.batcher = new GroupBatcher(deps.batching ?? { maxGroups: 1, windowMs: 0 });
  }

  async rollout(job: RolloutGroupJob, logger: Logger, signal?: AbortSignal): Promise<RewardGroupJob> {
    const { context, task } = await this.deps.contexts.task(job.runId, job.taskId).catch((error: unknown) => {
      throw error instanceof UnknownRunError ? new PermanentJobError(error.message) : error;
    });
    if (context.train.episode.submitAnswers && !this.deps.environment)
      throw new PermanentJobError(
        'the run\'s reward.source is "env", and this worker runs episodes in its own sandbox pool, which gives no ' +
          'reward: start rollout workers with ENV_URL (an OpenEnv environment) for this run',
      );
    const role = frozenRoleOf(context.train);
    const frozen =
      role === null ? undefined : { role: role.role, policy: await this.deps.frozen.policy(role.checkpoint) };
    const started = performance.now();
    const { rollout, weightSyncMs } = await this.deps.policies.with(
      job.runId,
      job.policyVersion,
      async (policy, weightSyncMs) => {
        signal?.throwIfAborted();
        const runner = new EpisodeRunner(
          {
            sandbox: this.deps.sandbox,
            ...rolePolicies(
              new SamplerPolicy(policy.decoder, context.tokenizer, policy.version, policy.reader?.(context.tokenizer)),
              frozen,
            ),
          },
          context.train.episode,
        );
        const rollout = await this.batcher.run(
          `${job.runId}@${job.policyVersion}:${job.G}`,
          { task: episodeTaskOf(task), seed: job.seed },
          (groups) => runner.runGroups(groups, job.G),
        );
        return { rollout, weightSyncMs };
      },
    );
    const generationMs = performance.now() - started - weightSyncMs;
    this.deps.metrics.observeGroup(rollout, generationMs, weightSyncMs);
    const newest = this.deps.policies.newestVersion(job.runId) ?? job.policyVersion;
    this.deps.metrics.policyVersionLag.set({ run_id: job.runId }, Math.max(0, newest - job.policyVersion));
    logger.info('group rolled out', {
      task_id: job.taskId,
      policy_version: job.policyVersion,
      scorable: rollout.trajectories.length,
      excluded: rollout.excluded.length,
      infra_failures: rollout.infraFailures.length,
      generation_ms: Math.round(generationMs),
      weight_sync_ms: Math.round(weightSyncMs),
    });
    const { G: _, seed: __, ...key } = job;
    return {
      ...key,
      trajectories: rollout.trajectories,
      excluded: rollout.excluded,
      infraFailures: rollout.infraFailures,
      generationMs,
      weightSyncMs,
    };
  }

  /**
   * The job handler: roll out, then enqueue the reward job (a no-op if a previous attempt already did). A job of a
   * run that has ended (stopped, completed, failed) is obsolete: it completes at once, with a log line, and is never
   * retried or dead-lettered (the learner rolls its step out again if the run is resumed).
   */
  async handle(job: RolloutGroupJob, logger: Logger, signal?: AbortSignal): Promise<void> {
    const ended = await this.deps.runs.endedStatus(job.runId);
    if (ended !== null) {
      logger.info('obsolete group dropped: its run has ended', { run_status: ended, task_id: job.taskId });
      return;
    }
    const reward = await this.rollout(job, logger, signal);
    await this.deps.producer.enqueue('reward.group', reward);
  }
}
