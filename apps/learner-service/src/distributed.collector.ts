import {
  deadLetterIdOf,
  deadLetterQueueOf,
  DeadLetterSchema,
  groupJobId,
  LearnGroupJobSchema,
  type LearnGroupJob,
  type QueueName,
  type RolloutGroupJob,
} from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { JobProducer, JobTransport } from '@fathom/queue';
import {
  groupSeed,
  stepGroupId,
  type CollectedStep,
  type StepCollectRequest,
  type StepCollector,
  type StepGroup,
  StepStoppedError,
} from '@fathom/training';
import { StepAbortedError, type GroupInbox } from './group.inbox';

export interface DistributedCollectorOptions {
  runId: string;
  producer: Pick<JobProducer, 'enqueueMany'>;
  transport: Pick<JobTransport, 'getJobData' | 'remove'>;
  inbox: GroupInbox;
  logger: Logger;
  /** A step whose groups have not all arrived after this long fails. */
  stepTimeoutMs: number;
  /** Asked while a step waits for its groups: true abandons the step (the run is being stopped). */
  shouldStop?: () => Promise<boolean>;
  /** How often missing groups are looked up in the dead-letter queues (and in kept learn jobs), and shouldStop asked. */
  checkEveryMs?: number;
}

/** The queues a group's jobs pass through, in order; one job id per group in each. */
const GROUP_QUEUES: readonly QueueName[] = ['rollout', 'reward', 'learn'];

/** The learn job of group `index`: `g<index>` (group ids are entity ids, so no `:`). */
export const groupIdOf = (index: number) => `g${index}`;

/** A group failed for good (its rollout, reward or learn job was dead-lettered): the step cannot complete. */
export class GroupFailedError extends Error {
  override name = 'GroupFailedError';
}

/**
 * Collects a step's groups from the services: enqueues one rollout.group job per task (id `${run}:${step}:g<i>`,
 * seed `groupSeed(seed, step, i)` exactly as the in-process loop uses), then waits for the scored groups on the
 * learn queue. Recovery after a learner restart: a rollout job that already existed is not enqueued again, and a
 * learn job that already completed is read back from the queue, and a group with no kept result (its jobs were
 * dropped while the run was stopped) is rolled out again. A group dead-lettered anywhere fails the step with the dead
 * letter's reason. When `shouldStop` turns true mid-step, the step's jobs that no worker is running are removed
 * from the queues and collect throws StepStoppedError (jobs still running finish, and the services drop what they
 * hand on, since the run is no longer running).
 */
export class DistributedCollector implements StepCollector {
  constructor(private readonly o: DistributedCollectorOptions) {}

  async collect(request: StepCollectRequest): Promise<CollectedStep & { weightSyncMs: number }> {
    const started = performance.now();
    const jobs: RolloutGroupJob[] = request.tasks.map((task, i) => ({
      runId: this.o.runId,
      step: request.step,
      groupId: groupIdOf(i),
      taskId: task.id,
      policyVersion: request.policyVersion,
      G: request.G,
      seed: groupSeed(request.seed, request.step, i),
    }));
    const results = await this.o.producer.enqueueMany('rollout.group', jobs);
    const repeated = jobs.filter((_, i) => !results[i].added);
    if (repeated.length > 0) {
      const restarted = await this.restartLostGroups(repeated);
      this.o.logger.info('rollout jobs already existed (a re-run step): reading their results back', {
        step: request.step,
        repeated: repeated.length,
        restarted,
      });
    }
    const received = await this.waitForGroups(jobs);
    const groups: StepGroup[] = jobs.map((job, index) => {
      const learn = received.get(job.groupId)!;
      return {
        groupId: stepGroupId(request.step, index, job.taskId),
        taskId: learn.taskId,
        claimedVersion: learn.policyVersion,
        trajectories: learn.trajectories,
        rewards: learn.reward?.rewards ?? [],
        results: learn.reward?.results ?? [],
        excluded: learn.excluded,
        infraFailures: learn.infraFailures,
      };
    });
    const all = [...received.values()];
    return {
      groups,
      generationMs: performance.now() - started,
      scoringMs: all.reduce((s, g) => s + g.scoringMs, 0),
      weightSyncMs: Math.max(0, ...all.map((g) => g.weightSyncMs)),
    };
  }

  async close(): Promise<void> {}

  /**
   * Groups of a re-run step without a kept learn job: their finished rollout and reward jobs are removed (a job a
   * worker is running is left to finish) and the rollout is enqueued again, so a group whose jobs were dropped as
   * obsolete while the run was stopped is not waited for in vain. Returns how many were enqueued again.
   */
  private async restartLostGroups(jobs: readonly RolloutGroupJob[]): Promise<number> {
    const lost: RolloutGroupJob[] = [];
    for (const job of jobs) {
      const id = groupJobId(job);
      if ((await this.o.transport.getJobData('learn', id)) !== undefined) continue;
      await this.o.transport.remove('reward', id);
      if (await this.o.transport.remove('rollout', id)) lost.push(job);
    }
    if (lost.length === 0) return 0;
    const results = await this.o.producer.enqueueMany('rollout.group', lost);
    return results.filter((r) => r.added).length;
  }

  /** Removes the jobs of `jobs`' groups that no worker is running from every group queue; returns how many. */
  private async removeGroupJobs(jobs: readonly RolloutGroupJob[]): Promise<number> {
    let removed = 0;
    for (const job of jobs)
      for (const queue of GROUP_QUEUES) if (await this.o.transport.remove(queue, groupJobId(job))) removed++;
    return removed;
  }

  private async waitForGroups(jobs: readonly RolloutGroupJob[]): Promise<Map<string, LearnGroupJob>> {
    const { runId, step } = jobs[0];
    const controller = new AbortController();
    const timeout = setTimeout(
      () => controller.abort(`step ${step} of run ${runId}: groups missing after ${this.o.stepTimeoutMs} ms`),
      this.o.stepTimeoutMs,
    );
    let failure = null as Error | null;
    const watch = setInterval(() => {
      this.check(jobs).catch((error: unknown) => {
        failure = error as Error;
        controller.abort(failure.message);
      });
    }, this.o.checkEveryMs ?? 2000);
    try {
      await this.lookUpMissing(jobs);
      return await this.o.inbox.waitFor(
        runId,
        step,
        jobs.map((j) => j.groupId),
        controller.signal,
      );
    } catch (error) {
      if (failure instanceof StepStoppedError) {
        const removed = await this.removeGroupJobs(jobs);
        this.o.logger.info('step abandoned: the run is stopping', { step, removed_jobs: removed });
        throw failure;
      }
      if (failure !== null) throw failure;
      if (error instanceof StepAbortedError) throw new GroupFailedError(error.message);
      throw error;
    } finally {
      clearTimeout(timeout);
      clearInterval(watch);
    }
  }

  /** One periodic check of a waiting step: a stop request first, then the missing groups. */
  private async check(jobs: readonly RolloutGroupJob[]): Promise<void> {
    const { runId, step } = jobs[0];
    if (this.o.shouldStop && (await this.o.shouldStop()))
      throw new StepStoppedError(`run ${runId} is stopping: step ${step} abandoned`);
    await this.lookUpMissing(jobs);
  }

  /** Missing groups: delivers kept learn jobs (a restart) and throws GroupFailedError for a dead-lettered one. */
  private async lookUpMissing(jobs: readonly RolloutGroupJob[]): Promise<void> {
    const { runId, step } = jobs[0];
    const missing = new Set(this.o.inbox.pending(runId, step));
    const candidates = missing.size > 0 ? jobs.filter((j) => missing.has(j.groupId)) : jobs;
    for (const job of candidates) {
      const id = groupJobId(job);
      const kept = LearnGroupJobSchema.safeParse(await this.o.transport.getJobData('learn', id));
      if (kept.success) {
        this.o.inbox.deliver(kept.data);
        continue;
      }
      for (const queue of GROUP_QUEUES) {
        const letter = DeadLetterSchema.safeParse(
          await this.o.transport.getJobData(deadLetterQueueOf(queue), deadLetterIdOf(id)),
        );
        if (letter.success)
          throw new GroupFailedError(
            `group ${job.groupId} of step ${step} (task ${job.taskId}) failed in the ${queue} queue: ${letter.data.reason}`,
          );
      }
    }
  }
}
