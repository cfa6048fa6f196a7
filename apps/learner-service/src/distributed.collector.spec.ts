import {
  deadLetterIdOf,
  deadLetterQueueOf,
  groupId,
  groupJobId,
  JOB_OPTIONS,
  type DeadLetter,
  type LearnGroupJob,
  type RewardGroupJob,
  type RolloutGroupJob,
} from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { InProcessTransport, JobProducer, PermanentJobError, type JobTransport } from '@fathom/queue';
import { samplePayloads } from '@fathom/queue/testing';
import { StepStoppedError, type StepCollectRequest } from '@fathom/training';
import { afterEach, describe, expect, it } from 'vitest';
import { DistributedCollector, GroupFailedError, type RecreatedReason } from './distributed.collector';
import { GroupInbox } from './group.inbox';

const logger = createLogger({ service: 'test', level: 'silent' });
const RUN = 'run-1';

const request = (step: number, groups: number): StepCollectRequest => ({
  step,
  tasks: Array.from({ length: groups }, (_, i) => ({ id: `t${i}` })) as unknown as StepCollectRequest['tasks'],
  taskIndexes: Array.from({ length: groups }, (_, i) => i),
  policyVersion: 0,
  seed: 7,
  G: 2,
});

/** What the rollout and reward services leave for a group: its reward job (its trajectories) and its score. */
function finished(job: RolloutGroupJob): { rollout: RewardGroupJob; score: LearnGroupJob } {
  const { runId, step, groupId: id, taskId, policyVersion } = job;
  const key = { runId, step, groupId: id, taskId, policyVersion };
  const sample = samplePayloads(id);
  return {
    rollout: { ...sample['reward.group'], ...key },
    score: { ...sample['learn.group'], ...key },
  };
}

let transport: InProcessTransport;

afterEach(async () => {
  await transport?.close();
});

/** A collector over an in-process transport; `rollouts` lists every rollout job the pipeline worker ran. */
function setUp(
  options: {
    resumedAt?: Date;
    /** What the collector reads the queues through, made over the transport (default: the transport itself). */
    lookups?: (transport: InProcessTransport) => Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'>;
    shouldStop?: () => Promise<boolean>;
  } = {},
) {
  transport = new InProcessTransport();
  const inbox = new GroupInbox();
  const recreated: RecreatedReason[] = [];
  const rollouts: RolloutGroupJob[] = [];
  const collector = new DistributedCollector({
    runId: RUN,
    producer: new JobProducer(transport),
    transport: options.lookups?.(transport) ?? transport,
    inbox,
    logger,
    stepTimeoutMs: 5000,
    recheckAbsentMs: 20,
    resumedAt: options.resumedAt,
    shouldStop: options.shouldStop,
    onRecreated: (reason) => recreated.push(reason),
  });
  /** Runs the rollout queue: each job is delivered to the inbox as its scored group after `delayMs`. */
  const pipeline = (delayMs = 0) =>
    transport.work(
      'rollout',
      async (job) => {
        rollouts.push(job.data as RolloutGroupJob);
        await new Promise((r) => setTimeout(r, delayMs));
        const { rollout, score } = finished(job.data as RolloutGroupJob);
        await transport.add('reward', { id: job.id, name: 'reward.group', data: rollout }, JOB_OPTIONS.reward);
        inbox.deliver(score);
      },
      { concurrency: 4 },
    );
  return { collector, inbox, recreated, rollouts, pipeline };
}

const jobId = (step: number, g: number) => groupJobId({ runId: RUN, step, groupId: groupId(step, g) });

/** Writes a dead letter of the group as a consumer does; `announce` also publishes it, as a consumer does next. */
async function writeDeadLetter(step: number, g: number, failedAt: Date, announce = false): Promise<void> {
  const id = jobId(step, g);
  const letter: DeadLetter = {
    queue: 'rollout',
    jobId: id,
    name: 'rollout.group',
    data: {},
    reason: 'job stalled more than allowable limit',
    kind: 'stalled',
    attemptsMade: 2,
    failedAt: failedAt.toISOString(),
  };
  await transport.add(
    deadLetterQueueOf('rollout'),
    { id: deadLetterIdOf(id), name: 'rollout.group', data: letter },
    JOB_OPTIONS.rollout,
  );
  if (announce) await new JobProducer(transport).publish('job.dead_lettered', { queue: 'rollout', jobId: id });
}

/**
 * TEST DOUBLE of a transport whose event subscriptions lose their connection: `resubscribed()` does what a
 * BullMqTransport does when its Redis connection is back (calls each subscription's onResubscribed).
 */
function droppingSubscriptions(inner: JobTransport) {
  const callbacks: (() => void)[] = [];
  const lookups: Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'> = {
    getJobData: (queue, id) => inner.getJobData(queue, id),
    remove: (queue, id) => inner.remove(queue, id),
    subscribe: (channel, listener, options) => {
      if (options?.onResubscribed) callbacks.push(options.onResubscribed);
      return inner.subscribe(channel, listener, options);
    },
  };
  return { lookups, resubscribed: () => callbacks.forEach((c) => c()) };
}

/** Leaves the group's rollout job kept as failed, as a dead-lettered job is. */
async function failRolloutJob(step: number, g: number): Promise<void> {
  const job: RolloutGroupJob = {
    runId: RUN,
    step,
    groupId: groupId(step, g),
    taskId: `t${g}`,
    policyVersion: 0,
    G: 2,
    seed: 1,
  };
  await new JobProducer(transport).enqueue('rollout.group', job);
  const worker = transport.work(
    'rollout',
    async () => {
      throw new PermanentJobError('gave up');
    },
    { concurrency: 1 },
  );
  await expect.poll(async () => (await transport.counts('rollout')).failed).toBe(1);
  await worker.close(0);
}

describe('DistributedCollector: groups lost from the queues (a Redis that came back empty)', () => {
  it('once its events are back after a lost connection, enqueues the rollout of a group found in no queue again, with the same id and seed, and completes the step', async () => {
    let double: ReturnType<typeof droppingSubscriptions> | undefined;
    const { collector, recreated, rollouts, pipeline } = setUp({
      lookups: (t) => (double = droppingSubscriptions(t)).lookups,
    });
    const collecting = collector.collect(request(1, 2));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(2);
    const enqueued = await Promise.all([0, 1].map((g) => transport.getJobData('rollout', jobId(1, g))));
    for (const g of [0, 1]) expect(await transport.remove('rollout', jobId(1, g))).toBe(true);
    // Nothing is looked up while nothing is announced: the loss goes unnoticed until the subscription is back.
    await new Promise((r) => setTimeout(r, 200));
    expect(recreated).toEqual([]);
    double!.resubscribed();
    pipeline();
    const step = await collecting;
    expect(step.groups.map((g) => g.taskId)).toEqual(['t0', 't1']);
    expect(step.groups.map((g) => g.groupId)).toEqual(['s1-g0', 's1-g1']);
    expect(recreated).toEqual(['lost', 'lost']);
    expect(rollouts.sort((a, b) => a.groupId.localeCompare(b.groupId))).toEqual(enqueued);
  });

  it('never enqueues again a group whose job a worker holds, however long', async () => {
    const { collector, recreated, rollouts, pipeline } = setUp();
    pipeline(300);
    await collector.collect(request(1, 2));
    expect(recreated).toEqual([]);
    expect(rollouts).toHaveLength(2);
  });

  it('needs the group absent on two consecutive checks: one missed look-up (a job between queues) is not enough', async () => {
    let lookups = 0;
    // Every other look-up of a rollout job finds nothing, as when a check falls between a job and the next one.
    const flaky = (t: InProcessTransport): Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'> => ({
      getJobData: async (queue, id) => {
        if (queue === 'rollout' && lookups++ % 2 === 0) return undefined;
        return t.getJobData(queue, id);
      },
      remove: (queue, id) => t.remove(queue, id),
      subscribe: (channel, listener, options) => t.subscribe(channel, listener, options),
    });
    const { collector, recreated, pipeline } = setUp({ lookups: flaky });
    const collecting = collector.collect(request(1, 1));
    await new Promise((r) => setTimeout(r, 300));
    expect(recreated).toEqual([]);
    pipeline();
    await collecting;
    expect(recreated).toEqual([]);
  });
});

describe('DistributedCollector: scores joined with their trajectories', () => {
  it("reads each group's trajectories from its reward job: the learn job carries the score only", async () => {
    const { collector, pipeline } = setUp();
    pipeline();
    const step = await collector.collect(request(1, 2));
    const sample = samplePayloads('any');
    expect(step.groups.map((g) => g.trajectories)).toEqual([0, 1].map(() => sample['reward.group'].trajectories));
    expect(step.groups.map((g) => g.rewards)).toEqual([0, 1].map(() => sample['learn.group'].reward!.rewards));
  });

  it('fails the step, naming the group, when its reward job is gone', async () => {
    const { collector, inbox } = setUp();
    transport.work('rollout', async (job) => void inbox.deliver(finished(job.data as RolloutGroupJob).score), {
      concurrency: 1,
    });
    await expect(collector.collect(request(1, 1))).rejects.toThrow(
      /group s1-g0 of step 1 \(task t0\): its reward job, which holds its trajectories, is gone/,
    );
  });
});

describe('DistributedCollector: dead letters of a resumed run', () => {
  it('sets a dead letter from before the resume aside with its failed job, and runs the group again', async () => {
    const resumedAt = new Date();
    const { collector, recreated, rollouts, pipeline } = setUp({ resumedAt });
    await failRolloutJob(1, 0);
    await writeDeadLetter(1, 0, new Date(resumedAt.getTime() - 60_000));
    pipeline();
    const step = await collector.collect(request(1, 2));
    expect(step.groups).toHaveLength(2);
    expect(recreated).toEqual(['dead_lettered_before_resume']);
    expect(await transport.getJobData(deadLetterQueueOf('rollout'), deadLetterIdOf(jobId(1, 0)))).toBeUndefined();
    expect(rollouts.map((r) => r.groupId).sort()).toEqual(['s1-g0', 's1-g1']);
  });

  it('still fails the step on a dead letter written after the resume', async () => {
    const resumedAt = new Date(Date.now() - 60_000);
    const { collector, recreated } = setUp({ resumedAt });
    const collecting = collector.collect(request(1, 2));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(2);
    await writeDeadLetter(1, 1, new Date(), true);
    await expect(collecting).rejects.toThrow(GroupFailedError);
    await expect(collecting).rejects.toThrow(
      /group s1-g1 of step 1 \(task t1\) failed in the rollout queue: .*stalled/,
    );
    expect(recreated).toEqual([]);
  });

  it('fails the step on an old dead letter when the run was not resumed', async () => {
    const { collector } = setUp();
    await writeDeadLetter(1, 0, new Date(Date.now() - 60_000));
    await expect(collector.collect(request(1, 1))).rejects.toThrow(GroupFailedError);
  });
});

describe('DistributedCollector: woken by events, not by polling', () => {
  it('fails the step as soon as a dead letter of one of its groups is announced, without waiting for the timeout', async () => {
    const { collector } = setUp();
    const collecting = collector.collect(request(1, 2));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(2);
    const started = Date.now();
    await writeDeadLetter(1, 0, new Date(), true);
    await expect(collecting).rejects.toThrow(/group s1-g0 of step 1 \(task t0\) failed in the rollout queue/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('ignores an unannounced dead letter until something wakes the step, and announcements of other jobs', async () => {
    const { collector, pipeline } = setUp();
    const collecting = collector.collect(request(1, 1));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(1);
    await new JobProducer(transport).publish('job.dead_lettered', { queue: 'rollout', jobId: 'other:1:s1-g0' });
    await new Promise((r) => setTimeout(r, 100));
    pipeline();
    expect((await collecting).groups).toHaveLength(1);
  });

  it('abandons the step when a stop of its run is announced, and removes the jobs no worker runs', async () => {
    let stopping = false;
    const { collector } = setUp({ shouldStop: async () => stopping });
    const collecting = collector.collect(request(1, 2));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(2);
    stopping = true;
    await new JobProducer(transport).publish('run.stopping', { runId: 'another-run' });
    await new Promise((r) => setTimeout(r, 100));
    expect((await transport.counts('rollout')).waiting).toBe(2);
    await new JobProducer(transport).publish('run.stopping', { runId: RUN });
    await expect(collecting).rejects.toThrow(StepStoppedError);
    expect((await transport.counts('rollout')).waiting).toBe(0);
  });

  it('looks the queues up once when a step starts and not again while nothing is announced', async () => {
    let lookups = 0;
    const counting = (t: InProcessTransport): Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'> => ({
      getJobData: (queue, id) => {
        lookups++;
        return t.getJobData(queue, id);
      },
      remove: (queue, id) => t.remove(queue, id),
      subscribe: (channel, listener, options) => t.subscribe(channel, listener, options),
    });
    const { collector, pipeline } = setUp({ lookups: counting });
    const collecting = collector.collect(request(1, 2));
    await expect.poll(async () => (await transport.counts('rollout')).waiting).toBe(2);
    const afterStart = lookups;
    await new Promise((r) => setTimeout(r, 300));
    expect(lookups).toBe(afterStart);
    pipeline();
    await collecting;
  });
});

describe('DistributedCollector: release after a checkpoint', () => {
  it('removes the rollout, reward and learn jobs of the steps up to it, and keeps the later steps', async () => {
    const { collector, pipeline } = setUp();
    pipeline();
    for (const step of [1, 2, 3]) await collector.collect(request(step, 2));
    for (const step of [1, 2, 3])
      for (const g of [0, 1])
        await transport.add('learn', { id: jobId(step, g), name: 'learn.group', data: {} }, JOB_OPTIONS.learn);
    const kept = async (step: number) =>
      Promise.all(
        (['rollout', 'reward', 'learn'] as const).flatMap((queue) =>
          [0, 1].map(async (g) => (await transport.getJobData(queue, jobId(step, g))) !== undefined),
        ),
      );

    expect(await collector.release(2)).toBe(12);
    expect(await kept(1)).toEqual(Array(6).fill(false));
    expect(await kept(2)).toEqual(Array(6).fill(false));
    expect(await kept(3)).toEqual(Array(6).fill(true));
    expect(await collector.release(2)).toBe(0);
    expect(await collector.release(3)).toBe(6);
  });

  it('leaves a job a worker still holds, and removes it at the next release', async () => {
    const { collector, pipeline } = setUp();
    pipeline();
    await collector.collect(request(1, 1));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const learner = transport.work('learn', () => held, { concurrency: 1 });
    await transport.add('learn', { id: jobId(1, 0), name: 'learn.group', data: {} }, JOB_OPTIONS.learn);
    await expect.poll(async () => (await transport.counts('learn')).active).toBe(1);

    expect(await collector.release(1)).toBe(2);
    finish();
    await expect.poll(async () => (await transport.counts('learn')).completed).toBe(1);
    expect(await collector.release(1)).toBe(1);
    expect(await transport.getJobData('learn', jobId(1, 0))).toBeUndefined();
    await learner.close(0);
  });
});
