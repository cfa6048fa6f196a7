import {
  JOB_NAMES,
  JOB_QUEUE,
  QUEUE_NAMES,
  deadLetterIdOf,
  deadLetterQueueOf,
  groupJobId,
  jobIdOf,
  type DeadLetter,
  type EpisodeTrajectory,
  type EvalRunJob,
  type LearnGroupJob,
  type QueueJobOptions,
  type QueueName,
  type RewardGroupJob,
  type RolloutGroupJob,
} from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { JobConsumer } from '../consumer';
import { handlerFor, type HandlerRegistration } from '../handlers';
import { JobProducer } from '../producer';
import { queueStats } from '../stats';
import { PermanentJobError, type DeliveredJob, type JobTransport, type TransportWorker } from '../transport';

/** Fast retries so the suite runs in seconds. */
export const FAST_DELIVERY = { attempts: 3, backoffMs: 10, keepCompletedS: 3600, keepFailedS: 3600 };
const FAST_OPTIONS: Record<QueueName, QueueJobOptions> = {
  rollout: FAST_DELIVERY,
  reward: FAST_DELIVERY,
  learn: FAST_DELIVERY,
  eval: FAST_DELIVERY,
};

export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition') {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A valid payload of each job name, for group `groupId`. */
export function samplePayloads(groupId: string) {
  const key = { runId: 'run-a', step: 1, groupId, taskId: 'task-1', policyVersion: 0 };
  const rollout: RolloutGroupJob = { ...key, G: 2, seed: 7 };
  const trajectory = (sampleIndex: number): EpisodeTrajectory => ({
    taskId: 'task-1',
    sampleIndex,
    attempt: 0,
    status: 'ok',
    stopReason: 'answer',
    turns: [
      {
        completion: '<answer>42</answer>',
        action: 'answer',
        observation: null,
        completionTokens: 2,
        sandboxError: null,
        finishReason: 'stop_token',
        generationMs: 1,
        envMs: 0,
      },
    ],
    answer: '42',
    ids: [1, 2, 3],
    logprobs: [0, -0.5, -0.25],
    mask: [0, 1, 1],
    promptTokens: 1,
    tokens: { completion: 2, observation: 0, subcall: 0 },
    recursionTree: {
      depth: 0,
      kind: 'root',
      prompt: 'q',
      chunkChars: 100,
      answer: '42',
      promptTokens: 1,
      completionTokens: 2,
      latencyMs: 1,
      turns: 1,
      children: [],
    },
    policyVersion: 0,
    trainSubcalls: false,
    timings: { generationMs: 1, envMs: 0, totalMs: 1 },
  });
  const group = {
    trajectories: [trajectory(0), trajectory(1)],
    excluded: [],
    infraFailures: [],
    generationMs: 1,
    weightSyncMs: 0,
  };
  const reward: RewardGroupJob = { ...key, ...group };
  const ms = { mean: 0.5, std: 0.5 };
  const result = (total: number) => ({
    total,
    components: { format: 1, correctness: total, token_budget: 1, recursion_efficiency: 0 },
    diagnostics: {
      answer: '42',
      answerSource: 'tag' as const,
      tagCount: 1,
      rejection: null,
      matched: total > 0 ? '42' : null,
      matchKind: total > 0 ? ('numeric' as const) : null,
      llmCalls: 0,
      callCountSource: 'executed' as const,
      unparsedCodeBlocks: 0,
      tokensSpent: 3,
      tokenBudget: 100,
      recursionEfficiencyRaw: 1,
      uncappedTotal: total,
      capped: false,
    },
  });
  const learn: LearnGroupJob = {
    ...key,
    scoringMs: 1,
    reward: {
      rewards: [1, 0],
      results: [result(1), result(0)],
      totals: { mean: 0.5, std: 0.5, min: 0, max: 1 },
      perComponent: { format: ms, correctness: ms, token_budget: ms, recursion_efficiency: ms },
      zeroStd: false,
    },
  };
  const evalRun: EvalRunJob = { evalId: groupId, checkpoint: 'default', split: 'eval', runId: null, limit: 5, seed: 0 };
  return { 'rollout.group': rollout, 'reward.group': reward, 'learn.group': learn, 'eval.run': evalRun } as const;
}

export interface TransportFixture {
  transport: JobTransport;
  /** Injects a job straight into a queue, the way a foreign or buggy producer would (no validation, any id). */
  inject(queue: string, name: string, data: unknown, id?: string): Promise<void>;
  /** Removes everything the fixture created (queues, keys). */
  destroy(): Promise<void>;
}

/**
 * The conformance suite every JobTransport passes (see the guarantees in transport.ts), plus the typed layer
 * (producer, consumer, dead-lettering) running over it. `create` is called once per suite; queue names are unique
 * per test, so tests never see each other's jobs.
 */
export function describeTransportConformance(label: string, create: () => Promise<TransportFixture>): void {
  describe(`JobTransport conformance: ${label}`, () => {
    let fixture: TransportFixture;
    let transport: JobTransport;
    const workers: TransportWorker[] = [];
    let counter = 0;
    const freshQueue = () => `conf${process.pid}x${++counter}`;
    const work = (queue: string, handler: (job: DeliveredJob) => Promise<void>, concurrency = 1) => {
      const worker = transport.work(queue, handler, { concurrency });
      workers.push(worker);
      return worker;
    };

    beforeAll(async () => {
      fixture = await create();
      transport = fixture.transport;
    });
    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.close(0)));
    });
    afterAll(async () => {
      await fixture.destroy();
    });

    it('delivers a job once, with its id, name, data and attempt 1', async () => {
      const queue = freshQueue();
      const seen: DeliveredJob[] = [];
      expect(await transport.add(queue, { id: 'r:1:g', name: 'x', data: { v: 1 } }, FAST_DELIVERY)).toBe(true);
      work(queue, async (job) => void seen.push(job));
      await waitFor(async () => (await transport.counts(queue)).completed === 1, 5000, 'completion');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({ id: 'r:1:g', name: 'x', data: { v: 1 }, queue, attempt: 1, maxAttempts: 3 });
    });

    it('ignores a second add of a kept id, before and after the job ran', async () => {
      const queue = freshQueue();
      expect(await transport.add(queue, { id: 'r:1:a', name: 'x', data: { v: 1 } }, FAST_DELIVERY)).toBe(true);
      expect(await transport.add(queue, { id: 'r:1:a', name: 'x', data: { v: 2 } }, FAST_DELIVERY)).toBe(false);
      expect(await transport.getJobData(queue, 'r:1:a')).toEqual({ v: 1 });
      let runs = 0;
      work(queue, async () => void (runs += 1));
      await waitFor(async () => (await transport.counts(queue)).completed === 1);
      expect(await transport.add(queue, { id: 'r:1:a', name: 'x', data: { v: 3 } }, FAST_DELIVERY)).toBe(false);
      await sleep(50);
      expect(runs).toBe(1);
    });

    it('addMany de-duplicates within the batch and against kept jobs', async () => {
      const queue = freshQueue();
      await transport.add(queue, { id: 'r:1:a', name: 'x', data: 1 }, FAST_DELIVERY);
      const added = await transport.addMany(
        queue,
        [
          { id: 'r:1:a', name: 'x', data: 2 },
          { id: 'r:1:b', name: 'x', data: 3 },
          { id: 'r:1:b', name: 'x', data: 4 },
          { id: 'r:1:c', name: 'x', data: 5 },
        ],
        FAST_DELIVERY,
      );
      expect(added).toEqual([false, true, false, true]);
      expect(await transport.counts(queue)).toMatchObject({ waiting: 3, active: 0 });
      expect(await transport.getJobData(queue, 'r:1:b')).toBe(3);
    });

    it('retries a transient failure with backoff until attempts run out, then keeps it failed with the reason', async () => {
      const queue = freshQueue();
      const attempts: number[] = [];
      work(queue, async (job) => {
        attempts.push(job.attempt);
        throw new Error(`flaky ${job.attempt}`);
      });
      await transport.add(queue, { id: 'r:1:f', name: 'x', data: null }, FAST_DELIVERY);
      await waitFor(async () => (await transport.counts(queue)).failed === 1, 5000, 'failure');
      expect(attempts).toEqual([1, 2, 3]);
      expect(await transport.failedJobs(queue, 10)).toEqual([
        { id: 'r:1:f', name: 'x', reason: 'flaky 3', attemptsMade: 3 },
      ]);
    });

    it('recovers when a retry succeeds', async () => {
      const queue = freshQueue();
      work(queue, async (job) => {
        if (job.attempt === 1) throw new Error('first try fails');
      });
      await transport.add(queue, { id: 'r:1:s', name: 'x', data: null }, FAST_DELIVERY);
      await waitFor(async () => (await transport.counts(queue)).completed === 1);
      expect((await transport.counts(queue)).failed).toBe(0);
    });

    it('fails a PermanentJobError at once, without retries', async () => {
      const queue = freshQueue();
      const attempts: number[] = [];
      work(queue, async (job) => {
        attempts.push(job.attempt);
        throw new PermanentJobError('cannot ever work');
      });
      await transport.add(queue, { id: 'r:1:p', name: 'x', data: null }, FAST_DELIVERY);
      await waitFor(async () => (await transport.counts(queue)).failed === 1);
      await sleep(50);
      expect(attempts).toEqual([1]);
      expect((await transport.failedJobs(queue, 1))[0].reason).toBe('cannot ever work');
    });

    it('runs at most `concurrency` jobs at once', async () => {
      const queue = freshQueue();
      let inFlight = 0;
      let peak = 0;
      work(
        queue,
        async () => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          await sleep(30);
          inFlight -= 1;
        },
        2,
      );
      await transport.addMany(
        queue,
        Array.from({ length: 6 }, (_, i) => ({ id: `r:1:c${i}`, name: 'x', data: i })),
        FAST_DELIVERY,
      );
      await waitFor(async () => (await transport.counts(queue)).completed === 6, 5000, 'six completions');
      expect(peak).toBe(2);
    });

    it('close() lets a running job finish before it resolves', async () => {
      const queue = freshQueue();
      let started = false;
      const worker = work(queue, async () => {
        started = true;
        await sleep(150);
      });
      await transport.add(queue, { id: 'r:1:d', name: 'x', data: null }, FAST_DELIVERY);
      await waitFor(() => started);
      await worker.close(5000);
      expect(await transport.counts(queue)).toMatchObject({ completed: 1, active: 0, waiting: 0 });
    });

    it('close() releases a job still running at the drain timeout to another worker, aborting its signal', async () => {
      const queue = freshQueue();
      let firstSignal: AbortSignal | undefined;
      const first = work(queue, (job) => {
        firstSignal = job.signal;
        return new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve()));
      });
      await transport.add(queue, { id: 'r:1:h', name: 'x', data: { v: 7 } }, FAST_DELIVERY);
      await waitFor(() => firstSignal !== undefined);
      await first.close(50);
      expect(firstSignal?.aborted).toBe(true);
      const redelivered: DeliveredJob[] = [];
      work(queue, async (job) => void redelivered.push(job));
      await waitFor(() => redelivered.length === 1, 5000, 'redelivery');
      expect(redelivered[0]).toMatchObject({ id: 'r:1:h', data: { v: 7 } });
      await waitFor(async () => (await transport.counts(queue)).completed === 1);
    });

    it('counts waiting jobs of a queue nobody consumes', async () => {
      const queue = freshQueue();
      await transport.addMany(
        queue,
        [0, 1, 2].map((i) => ({ id: `r:2:w${i}`, name: 'x', data: i })),
        FAST_DELIVERY,
      );
      expect(await transport.counts(queue)).toEqual({ waiting: 3, active: 0, delayed: 0, completed: 0, failed: 0 });
    });

    it('remove() takes out a waiting or finished job, freeing its id, and leaves a running one alone', async () => {
      const queue = freshQueue();
      await transport.addMany(
        queue,
        ['run', 'wait', 'done'].map((id) => ({ id: `r:3:${id}`, name: 'x', data: id })),
        FAST_DELIVERY,
      );
      expect(await transport.remove(queue, 'r:3:wait')).toBe(true);
      expect(await transport.remove(queue, 'r:3:wait')).toBe(false);
      expect(await transport.getJobData(queue, 'r:3:wait')).toBeUndefined();
      let release = () => {};
      const seen: unknown[] = [];
      work(queue, async (job) => {
        seen.push(job.data);
        if (job.data === 'run') await new Promise<void>((resolve) => (release = resolve));
      });
      await waitFor(async () => (await transport.counts(queue)).active === 1, 5000, 'the running job');
      expect(await transport.remove(queue, 'r:3:run')).toBe(false);
      release();
      await waitFor(async () => (await transport.counts(queue)).completed === 2, 5000, 'completion');
      expect(seen).toEqual(['run', 'done']);
      expect(await transport.remove(queue, 'r:3:done')).toBe(true);
      expect(await transport.add(queue, { id: 'r:3:done', name: 'x', data: 'again' }, FAST_DELIVERY)).toBe(true);
      await waitFor(async () => (await transport.counts(queue)).completed === 2, 5000, 'the re-added job');
      expect(seen).toEqual(['run', 'done', 'again']);
    });

    it('broadcasts an event to every subscriber until it unsubscribes', async () => {
      const channel = freshQueue();
      const a: unknown[] = [];
      const b: unknown[] = [];
      const offA = await transport.subscribe(channel, (m) => a.push(m));
      const offB = await transport.subscribe(channel, (m) => b.push(m));
      await transport.publish(channel, { v: 1 });
      await waitFor(() => a.length === 1 && b.length === 1, 5000, 'both subscribers');
      await offA();
      await transport.publish(channel, { v: 2 });
      await waitFor(() => b.length === 2);
      await sleep(50);
      expect(a).toEqual([{ v: 1 }]);
      expect(b).toEqual([{ v: 1 }, { v: 2 }]);
      await offB();
    });

    describe('typed producer and consumer over it', () => {
      const logger = createLogger({ service: 'queue-conformance', level: 'silent' });
      let consumer: JobConsumer | undefined;
      afterEach(async () => {
        await consumer?.close();
        consumer = undefined;
      });

      it('dead-letters malformed payloads injected into each queue, with the reason, and keeps consuming', async () => {
        const producer = new JobProducer(transport, FAST_OPTIONS);
        const handled: string[] = [];
        const handlers: HandlerRegistration[] = JOB_NAMES.map((name) =>
          handlerFor(name, async (_payload, context) => void handled.push(`${name}:${context.id}`)),
        );
        consumer = new JobConsumer({ transport, queues: QUEUE_NAMES, handlers, logger, drainTimeoutMs: 1000 });
        consumer.start();
        const group = `g${counter++}`;
        for (const name of JOB_NAMES) {
          await fixture.inject(JOB_QUEUE[name], name, { runId: 'run-a', step: 'one' }, `bad:${name}:${group}`);
          await fixture.inject(JOB_QUEUE[name], 'no.such.job', { whatever: true }, `odd:${name}:${group}`);
        }
        for (const name of JOB_NAMES) await producer.enqueue(name, samplePayloads(group)[name] as never);
        await waitFor(() => handled.length === JOB_NAMES.length, 10_000, 'every valid job handled');
        const payloads = samplePayloads(group);
        expect(handled.sort()).toEqual(JOB_NAMES.map((n) => `${n}:${jobIdOf(n, payloads[n] as never)}`).sort());
        for (const name of JOB_NAMES) {
          const queue = JOB_QUEUE[name];
          await waitFor(async () => (await transport.counts(queue)).failed >= 2, 5000, `${queue} failures`);
          const letter = (await transport.getJobData(
            deadLetterQueueOf(queue),
            deadLetterIdOf(`bad:${name}:${group}`),
          )) as DeadLetter;
          expect(letter).toMatchObject({ queue, name, kind: 'malformed', data: { runId: 'run-a', step: 'one' } });
          // Every payload schema rejects step "one": group jobs as a wrong type, eval.run as an unknown key.
          expect(letter.reason).toMatch(new RegExp(`^malformed ${name.replace('.', '\\.')} payload: .*step`));
          const odd = (await transport.getJobData(
            deadLetterQueueOf(queue),
            deadLetterIdOf(`odd:${name}:${group}`),
          )) as DeadLetter;
          expect(odd).toMatchObject({
            kind: 'unknown_job',
            reason: `queue ${queue} carries no job named "no.such.job"`,
          });
          const failed = await transport.failedJobs(queue, 10);
          expect(failed.find((f) => f.id === `bad:${name}:${group}`)).toMatchObject({ attemptsMade: 1 });
        }
        const stats = await queueStats(transport);
        for (const s of stats) expect(s.deadLettered).toBeGreaterThanOrEqual(2);
      });

      it('dead-letters a job whose transient failures use every attempt', async () => {
        const producer = new JobProducer(transport, FAST_OPTIONS);
        const group = `g${counter++}`;
        let tries = 0;
        consumer = new JobConsumer({
          transport,
          queues: ['rollout'],
          handlers: [
            handlerFor('rollout.group', async (payload) => {
              if (payload.groupId !== group) return;
              tries += 1;
              throw new Error('env-service unreachable');
            }),
          ],
          logger,
        });
        consumer.start();
        const { jobId } = await producer.enqueue('rollout.group', samplePayloads(group)['rollout.group']);
        await waitFor(
          async () => (await transport.getJobData(deadLetterQueueOf('rollout'), deadLetterIdOf(jobId))) !== undefined,
          5000,
          'dead letter',
        );
        expect(tries).toBe(3);
        expect(await transport.getJobData(deadLetterQueueOf('rollout'), deadLetterIdOf(jobId))).toMatchObject({
          kind: 'exhausted',
          reason: 'env-service unreachable',
          attemptsMade: 3,
        });
      });

      it('releases a job at shutdown without dead-lettering it, even on its last attempt', async () => {
        const once = { ...FAST_DELIVERY, attempts: 1 };
        const producer = new JobProducer(transport, { ...FAST_OPTIONS, reward: once });
        const group = `g${counter++}`;
        let started = false;
        consumer = new JobConsumer({
          transport,
          queues: ['reward'],
          handlers: [
            handlerFor('reward.group', async (payload, context) => {
              if (payload.groupId !== group) return;
              started = true;
              await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
              throw new Error('aborted by shutdown');
            }),
          ],
          logger,
          drainTimeoutMs: 50,
        });
        consumer.start();
        const { jobId } = await producer.enqueue('reward.group', samplePayloads(group)['reward.group']);
        await waitFor(() => started);
        await consumer.close();
        await sleep(100);
        expect(await transport.getJobData(deadLetterQueueOf('reward'), deadLetterIdOf(jobId))).toBeUndefined();
        expect((await transport.counts('reward')).waiting).toBeGreaterThanOrEqual(1);
        expect(await transport.getJobData('reward', jobId)).toMatchObject({ groupId: group });
      });

      it('gives a job its deterministic id, so a repeated enqueue creates nothing', async () => {
        const producer = new JobProducer(transport, FAST_OPTIONS);
        const payload = samplePayloads(`g${counter++}`)['rollout.group'];
        const first = await producer.enqueue('rollout.group', payload);
        const again = await producer.enqueueMany('rollout.group', [payload, payload]);
        expect(first).toEqual({ jobId: groupJobId(payload), added: true });
        expect(again).toEqual([
          { jobId: groupJobId(payload), added: false },
          { jobId: groupJobId(payload), added: false },
        ]);
      });
    });
  });
}
