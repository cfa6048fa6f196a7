import type { GroupReward, LearnGroupJob, RewardGroupJob } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { EpisodeRepository, RunRepository } from '@fathom/persistence';
import { PermanentJobError, type JobProducer } from '@fathom/queue';
import { scoreGroup } from '@fathom/rewards';
import { toRewardTrajectory } from '@fathom/rlm';
import { UnknownRunError, type RunContextCache } from '@fathom/training';
import { episodeRecordOf } from './episode.record';
import type { RewardMetrics } from './metrics';

export interface RewardServiceDeps {
  runs: Pick<RunRepository, 'endedStatus'>;
  contexts: Pick<RunContextCache, 'task'>;
  episodes: Pick<EpisodeRepository, 'recordMany'>;
  producer: Pick<JobProducer, 'enqueue'>;
  metrics: RewardMetrics;
}

/**
 * One reward.group job: score the group's scorable trajectories with the run's reward config (libs/rewards, pure),
 * store them as Episode rows, and hand the group's score to the learner (learn.group carries the score only: the
 * learner reads the trajectories from this job, which the queues keep until a checkpoint covers the step). Samples
 * whose infra-error retries ran out are passed on unscored (never scored as 0). Safe to run twice: Episode rows are
 * keyed by (run, step, group, sample) and the learn job's id is the group's.
 */
export class RewardService {
  constructor(private readonly deps: RewardServiceDeps) {}

  async score(job: RewardGroupJob): Promise<LearnGroupJob> {
    const { context, task } = await this.deps.contexts.task(job.runId, job.taskId).catch((error: unknown) => {
      throw error instanceof UnknownRunError ? new PermanentJobError(error.message) : error;
    });
    const started = performance.now();
    let reward: GroupReward | null = null;
    if (job.trajectories.length > 0) {
      try {
        reward = scoreGroup(job.trajectories.map(toRewardTrajectory), task, context.train.reward);
      } catch (error) {
        throw new PermanentJobError(
          `group ${job.groupId} of step ${job.step} cannot be scored: ${(error as Error).message}`,
        );
      }
    }
    const scoringMs = performance.now() - started;
    const style = context.train.episode.promptStyle;
    const records = job.trajectories.map((t, i) => episodeRecordOf(job, t, reward!.results[i], task, style));
    await this.deps.episodes.recordMany(records);
    this.deps.metrics.observeGroup(reward, job, scoringMs);
    const { runId, step, groupId, taskId, policyVersion } = job;
    return { runId, step, groupId, taskId, policyVersion, reward, scoringMs };
  }

  /**
   * The job handler: score, then enqueue the learn job. A group of a run that has ended (stopped, completed, failed)
   * is obsolete: it is dropped with a log line, never retried or dead-lettered.
   */
  async handle(job: RewardGroupJob, logger: Logger): Promise<void> {
    const ended = await this.deps.runs.endedStatus(job.runId);
    if (ended !== null) {
      logger.info('obsolete group dropped: its run has ended', { run_status: ended, task_id: job.taskId });
      return;
    }
    const learn = await this.score(job);
    await this.deps.producer.enqueue('learn.group', learn);
    logger.info('group scored', {
      task_id: job.taskId,
      reward_mean: learn.reward?.totals.mean ?? null,
      zero_std: learn.reward?.zeroStd ?? null,
      scorable: job.trajectories.length,
      excluded: job.excluded.length,
    });
  }
}
