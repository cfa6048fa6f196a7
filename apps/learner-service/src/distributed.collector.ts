import {
  deadLetterIdOf,
  deadLetterQueueOf,
  DeadLetterSchema,
  groupId,
  groupJobId,
  LearnGroupJobSchema,
  RewardGroupJobSchema,
  scoredGroupOf,
  type LearnGroupJob,
  type QueueName,
  type RolloutGroupJob,
  type StepGroup,
} from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import { subscribeEvent, type JobProducer, type JobTransport } from '@fathom/queue';
import {
  groupSeed,
  type CollectedStep,
  type StepCollectRequest,
  type StepCollector,
  StepStoppedError,
} from '@fathom/training';
import { StepAbortedError, type GroupInbox } from './group.inbox';

export interface DistributedCollectorOptions {
  runId: string;
  producer: Pick<JobProducer, 'enqueueMany'>;
  transport: Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'>;
  inbox: GroupInbox;
  logger: Logger;
  /** A step whose groups have not all arrived after this long fails. */
  stepTimeoutMs: number;
  /**
   * Asked while a step waits for its groups, when a stop is announced (`run.stopping`) or the event subscription is
   * back after a lost connection: true abandons the step (the run is being stopped).
   */
  shouldStop?: () => Promise<boolean>;
  /** How long after a look-up that found a group in no queue it is looked up again (default 2 s). */
  recheckAbsentMs?: number;
  /**
   * When this learner took up a run that had started before (a resume, or a restart of the learner): a dead letter
   * of a step's group written before then is set aside (removed, and logged) and the group is run again, instead of
   * failing the step. Absent for a fresh run.
   */
  resumedAt?: Date;
  /** Told of each group this collector enqueued again by itself: a lost one, or one dead-lettered before the resume. */
  onRecreated?: (reason: RecreatedReason) => void;
}

/** Why a group was enqueued again: its jobs vanished from every queue, or it was dead-lettered before the resume. */
export type RecreatedReason = 'lost' | 'dead_lettered_before_resume';

/**
 * How many consecutive look-ups must find a group in no queue at all (no rollout, reward or learn job, no dead
 * letter) before its rollout job is enqueued again: one look-up can fall between a job finishing and the next queue's
 * job being added.
 */
export const ABSENT_CHECKS_BEFORE_RECREATE = 2;

/** The queues a group's jobs pass through, in order; one job id per group in each. */
const GROUP_QUEUES: readonly QueueName[] = ['rollout', 'reward', 'learn'];

/** A job of a collected step in one of the group queues. */
interface KeptJob {
  step: number;
  queue: QueueName;
  id: string;
}

/** A group failed for good (its rollout, reward or learn job was dead-lettered): the step cannot complete. */
export class GroupFailedError extends Error {
  override name = 'GroupFailedError';
}

/**
 * Collects a step's groups from the services: enqueues one rollout.group job per task (group id `groupId(step, i)`,
 * seed `groupSeed(seed, step, i)`: both as the in-process loop makes them), then waits for the scored groups on the
 * learn queue. Recovery after a learner restart: a rollout job that already existed is not enqueued again, and a
 * learn job that already completed is read back from the queue, and a group with no kept result (its jobs were
 * dropped while the run was stopped) is rolled out again. A group dead-lettered anywhere fails the step with the dead
 * letter's reason, unless the letter was written before the run was resumed (`resumedAt`): then the letter and the
 * failed job are removed and the group is rolled out again.
 *
 * Nothing polls the queues. The missing groups are looked up when the step starts to wait (a restart finds what
 * finished meanwhile), and again only when something is announced: a dead letter of one of them
 * (`job.dead_lettered`, which fails the step with the letter's reason), a stop of the run (`run.stopping`), or the
 * event subscription back after its Redis connection was lost (what was announced meanwhile is missed, and a Redis
 * that came back without its data has lost jobs). A group found in no queue is looked up again `recheckAbsentMs`
 * later, and on `ABSENT_CHECKS_BEFORE_RECREATE` consecutive absences rolled out again with the same job id and seed
 * (its reward job and Episode rows are keyed by the group, so a group that was only slow is not doubled).
 * When `shouldStop` turns true mid-step, the step's jobs that no worker is running are removed from the queues and
 * collect throws StepStoppedError (jobs still running finish, and the services drop what they hand on, since the run
 * is no longer running). The queues keep a collected step's jobs (its trajectories among them) until `release` is
 * told that a checkpoint covers the step, so Redis holds the steps since the last checkpoint, not a day of them.
 */
export class DistributedCollector implements StepCollector {
  /** Per group job id: on how many consecutive checks the group was found in no queue. */
  private readonly absent = new Map<string, number>();
  /** The queue jobs of collected steps that are still kept, with their step. */
  private kept: KeptJob[] = [];
  /** The job ids of the groups of the step waiting now. */
  private waiting = new Set<string>();
  /** Looks the waiting step's missing groups up again (set while a step waits). */
  private wake: (() => void) | null = null;
  private unsubscribe: (() => Promise<void>)[] | null = null;

  constructor(private readonly o: DistributedCollectorOptions) {}

  /** Subscribes (once) to what makes a waiting step look its missing groups up again. */
  private async listen(): Promise<void> {
    if (this.unsubscribe !== null) return;
    const options = { onResubscribed: () => this.wake?.() };
    this.unsubscribe = await Promise.all([
      subscribeEvent(
        this.o.transport,
        'job.dead_lettered',
        (event) => {
          if (this.waiting.has(event.jobId)) this.wake?.();
        },
        this.o.logger,
        options,
      ),
      subscribeEvent(
        this.o.transport,
        'run.stopping',
        (event) => {
          if (event.runId === this.o.runId) this.wake?.();
        },
        this.o.logger,
        options,
      ),
    ]);
  }

  async collect(request: StepCollectRequest): Promise<CollectedStep & { weightSyncMs: number }> {
    const started = performance.now();
    const jobs: RolloutGroupJob[] = request.tasks.map((task, i) => ({
      runId: this.o.runId,
      step: request.step,
      groupId: groupId(request.step, i),
      taskId: task.id,
      policyVersion: request.policyVersion,
      G: request.G,
      seed: groupSeed(request.seed, request.step, i),
    }));
    this.absent.clear();
    this.waiting = new Set(jobs.map(groupJobId));
    await this.listen();
    await this.setAsideLettersBeforeResume(jobs);
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
    this.kept.push(
      ...jobs.flatMap((job) => GROUP_QUEUES.map((queue) => ({ step: request.step, queue, id: groupJobId(job) }))),
    );
    const scored = await Promise.all(jobs.map((job) => this.scoredGroup(job, received.get(job.groupId)!)));
    return {
      groups: scored.map((s) => s.group),
      generationMs: performance.now() - started,
      scoringMs: [...received.values()].reduce((sum, score) => sum + score.scoringMs, 0),
      weightSyncMs: Math.max(0, ...scored.map((s) => s.weightSyncMs)),
    };
  }

  /**
   * A group's score joined with its trajectories, read from its reward.group job (kept until a checkpoint covers the
   * step). A reward job that is gone or does not match its score fails the step (GroupFailedError) with the reason.
   */
  private async scoredGroup(
    job: RolloutGroupJob,
    score: LearnGroupJob,
  ): Promise<{ group: StepGroup; weightSyncMs: number }> {
    const rollout = RewardGroupJobSchema.safeParse(await this.o.transport.getJobData('reward', groupJobId(job)));
    const failed = (reason: string) =>
      new GroupFailedError(`group ${job.groupId} of step ${job.step} (task ${job.taskId}): ${reason}`);
    if (!rollout.success) throw failed('its reward job, which holds its trajectories, is gone or malformed');
    try {
      return { group: scoredGroupOf(rollout.data, score), weightSyncMs: rollout.data.weightSyncMs };
    } catch (error) {
      throw failed((error as Error).message);
    }
  }

  async close(): Promise<void> {
    const unsubscribe = this.unsubscribe ?? [];
    this.unsubscribe = null;
    await Promise.all(unsubscribe.map((u) => u()));
  }

  /**
   * Removes the rollout, reward and learn jobs of every collected step up to `step` from the queues: a checkpoint
   * holds that step's update, so a resume never runs it again and its kept results are no longer read back (the
   * trajectories the update saw are in the run's `rollouts/step-N.jsonl`). A job a worker still holds (a learn job
   * whose completion is not yet recorded) is tried again at the next release. Returns how many jobs were removed.
   */
  async release(step: number): Promise<number> {
    const due = this.kept.filter((job) => job.step <= step);
    this.kept = this.kept.filter((job) => job.step > step);
    let removed = 0;
    for (const [i, job] of due.entries()) {
      try {
        if (await this.o.transport.remove(job.queue, job.id)) removed++;
        else if ((await this.o.transport.getJobData(job.queue, job.id)) !== undefined) this.kept.push(job);
      } catch (error) {
        this.kept.push(...due.slice(i));
        throw error;
      }
    }
    return removed;
  }

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

  /**
   * Dead letters of `jobs`' groups written before the run was resumed: each is removed with the job it failed (so
   * the group's id is free in that queue), and logged; the enqueue that follows rolls the group out again (a group
   * with a kept rollout job goes through restartLostGroups).
   */
  private async setAsideLettersBeforeResume(jobs: readonly RolloutGroupJob[]): Promise<void> {
    const { resumedAt } = this.o;
    if (resumedAt === undefined) return;
    for (const job of jobs) {
      const id = groupJobId(job);
      for (const queue of GROUP_QUEUES) {
        const letterId = deadLetterIdOf(id);
        const letter = DeadLetterSchema.safeParse(
          await this.o.transport.getJobData(deadLetterQueueOf(queue), letterId),
        );
        if (!letter.success || Date.parse(letter.data.failedAt) >= resumedAt.getTime()) continue;
        if (!(await this.o.transport.remove(deadLetterQueueOf(queue), letterId))) continue;
        await this.o.transport.remove(queue, id);
        this.o.onRecreated?.('dead_lettered_before_resume');
        this.o.logger.warn('dead letter from before the resume set aside: the group runs again', {
          step: job.step,
          group_id: job.groupId,
          task_id: job.taskId,
          queue,
          kind: letter.data.kind,
          reason: letter.data.reason,
          failed_at: letter.data.failedAt,
        });
      }
    }
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
    let checking = false;
    let again = false;
    let recheck: NodeJS.Timeout | undefined;
    /** One look-up at a time (what was asked meanwhile runs after it), so absences count whole look-ups. */
    const lookUp = (first: boolean) => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      clearTimeout(recheck);
      (first ? this.lookUpMissing(jobs) : this.check(jobs))
        .then(() => {
          if (this.absent.size > 0) recheck = setTimeout(() => lookUp(false), this.o.recheckAbsentMs ?? 2000);
        })
        .catch((error: unknown) => {
          failure = error as Error;
          controller.abort(failure.message);
        })
        .finally(() => {
          checking = false;
          if (again && failure === null) {
            again = false;
            lookUp(false);
          }
        });
    };
    this.wake = () => lookUp(false);
    try {
      lookUp(true);
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
      this.wake = null;
      clearTimeout(timeout);
      clearTimeout(recheck);
    }
  }

  /** A look-up the waiting step was woken for: a stop request first, then the missing groups. */
  private async check(jobs: readonly RolloutGroupJob[]): Promise<void> {
    const { runId, step } = jobs[0];
    if (this.o.shouldStop && (await this.o.shouldStop()))
      throw new StepStoppedError(`run ${runId} is stopping: step ${step} abandoned`);
    await this.lookUpMissing(jobs);
  }

  /**
   * Missing groups: delivers kept learn jobs (a restart), throws GroupFailedError for a dead-lettered one, and
   * enqueues again the rollout job of one found in no queue on ABSENT_CHECKS_BEFORE_RECREATE consecutive checks.
   */
  private async lookUpMissing(jobs: readonly RolloutGroupJob[]): Promise<void> {
    const { runId, step } = jobs[0];
    const missing = new Set(this.o.inbox.pending(runId, step));
    const candidates = missing.size > 0 ? jobs.filter((j) => missing.has(j.groupId)) : jobs;
    for (const job of candidates) {
      const id = groupJobId(job);
      const learn = await this.o.transport.getJobData('learn', id);
      const kept = LearnGroupJobSchema.safeParse(learn);
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
      await this.recreateIfLost(job, learn === undefined);
    }
  }

  /**
   * A group with no learn job (`noLearnJob`), no dead letter and no rollout or reward job is counted absent; once
   * absent on ABSENT_CHECKS_BEFORE_RECREATE consecutive checks its rollout job is enqueued again (same id and seed).
   */
  private async recreateIfLost(job: RolloutGroupJob, noLearnJob: boolean): Promise<void> {
    const id = groupJobId(job);
    let found = !noLearnJob;
    for (const queue of ['rollout', 'reward'] as const)
      found ||= (await this.o.transport.getJobData(queue, id)) !== undefined;
    if (found) {
      this.absent.delete(id);
      return;
    }
    const checks = (this.absent.get(id) ?? 0) + 1;
    if (checks < ABSENT_CHECKS_BEFORE_RECREATE) {
      this.absent.set(id, checks);
      return;
    }
    this.absent.delete(id);
    const [result] = await this.o.producer.enqueueMany('rollout.group', [job]);
    if (!result.added) return;
    this.o.onRecreated?.('lost');
    this.o.logger.warn('group found in no queue (its jobs lost): rollout enqueued again', {
      step: job.step,
      group_id: job.groupId,
      task_id: job.taskId,
      absent_checks: checks,
    });
  }
}
