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
} from '@fathom/training';
import { StepAbortedError, type GroupInbox } from './group.inbox';

export interface DistributedCollectorOptions {
  runId: string;
  producer: Pick<JobProducer, 'enqueueMany'>;
  transport: Pick<JobTransport, 'getJobData'>;
  inbox: GroupInbox;
  logger: Logger;
  /** A step whose groups have not all arrived after this long fails. */
  stepTimeoutMs: number;
  /** How often missing groups are looked up in the dead-letter queues (and in kept learn jobs). */
  checkEveryMs?: number;
}

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
 * learn job that already completed is read back from the queue. A group dead-lettered anywhere fails the step with
 * the dead letter's reason.
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
    const repeated = results.filter((r) => !r.added).length;
    if (repeated > 0)
      this.o.logger.info('rollout jobs already existed (a re-run step): reading their results back', {
        step: request.step,
        repeated,
      });
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

  private async waitForGroups(jobs: readonly RolloutGroupJob[]): Promise<Map<string, LearnGroupJob>> {
    const { runId, step } = jobs[0];
    const controller = new AbortController();
    const timeout = setTimeout(
      () => controller.abort(`step ${step} of run ${runId}: groups missing after ${this.o.stepTimeoutMs} ms`),
      this.o.stepTimeoutMs,
    );
    let failure: Error | null = null;
    const watch = setInterval(() => {
      this.lookUpMissing(jobs).catch((error: unknown) => {
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
      if (failure !== null) throw failure;
      if (error instanceof StepAbortedError) throw new GroupFailedError(error.message);
      throw error;
    } finally {
      clearTimeout(timeout);
      clearInterval(watch);
    }
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
      for (const queue of ['rollout', 'reward', 'learn'] as QueueName[]) {
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
