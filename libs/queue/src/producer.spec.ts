import { groupJobId } from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { describe, expect, it } from 'vitest';
import { JobConsumer } from './consumer';
import { QueueError } from './errors';
import { subscribeEvent } from './events';
import { handlerFor } from './handlers';
import { InProcessTransport } from './in-process.transport';
import { JobProducer } from './producer';
import { samplePayloads, waitFor } from './testing/transport.conformance';
import { PermanentJobError } from './transport';

const logger = createLogger({ service: 'queue-spec', level: 'silent' });

describe('JobProducer', () => {
  it('validates before enqueueing: an invalid payload throws INVALID_PAYLOAD naming the field, and nothing is queued', async () => {
    const transport = new InProcessTransport();
    const producer = new JobProducer(transport);
    const bad = { ...samplePayloads('g1')['rollout.group'], G: 0 };
    await expect(producer.enqueue('rollout.group', bad)).rejects.toThrow(/rollout\.group: G: .*>=1/);
    await expect(producer.enqueue('rollout.group', bad)).rejects.toBeInstanceOf(QueueError);
    expect((await transport.counts('rollout')).waiting).toBe(0);
    await transport.close();
  });

  it('rejects a batch that gives one job id two payloads, and enqueues none of it', async () => {
    const transport = new InProcessTransport();
    const producer = new JobProducer(transport);
    const a = samplePayloads('g1')['rollout.group'];
    await expect(producer.enqueueMany('rollout.group', [a, { ...a, taskId: 'other' }])).rejects.toThrow(
      new RegExp(`one job id was given two different payloads: job ${groupJobId(a)}`),
    );
    expect((await transport.counts('rollout')).waiting).toBe(0);
    await transport.close();
  });

  it('refuses ids that would break the job id format', async () => {
    const producer = new JobProducer(new InProcessTransport());
    const payload = { ...samplePayloads('g1')['rollout.group'], runId: 'run:1' };
    await expect(producer.enqueue('rollout.group', payload)).rejects.toThrow(/runId: must be 1-128 letters/);
  });
});

describe('events', () => {
  it('delivers valid policy.updated events and drops malformed ones', async () => {
    const transport = new InProcessTransport();
    const producer = new JobProducer(transport);
    const seen: number[] = [];
    const lines: string[] = [];
    const log = createLogger({ service: 'spec', write: (line) => lines.push(line) });
    await subscribeEvent(transport, 'policy.updated', (e) => seen.push(e.policyVersion), log);
    await transport.publish('policy.updated', { runId: 'r', policyVersion: -1 });
    await producer.publish('policy.updated', { runId: 'r', policyVersion: 3, step: 3, checkpointPath: null });
    await waitFor(() => seen.length === 1);
    expect(seen).toEqual([3]);
    expect(lines.some((l) => l.includes('malformed event dropped') && l.includes('policyVersion'))).toBe(true);
    await transport.close();
  });
});

describe('JobConsumer', () => {
  it('refuses to start without a handler for every job of its queues', () => {
    const transport = new InProcessTransport();
    expect(
      () =>
        new JobConsumer({
          transport,
          queues: ['rollout', 'reward'],
          handlers: [handlerFor('rollout.group', async () => undefined)],
          logger,
        }),
    ).toThrow(/missing: reward\.group/);
  });

  it('dead-letters what a handler rejects as permanent, without retrying, and announces the letter', async () => {
    const transport = new InProcessTransport();
    const announced: unknown[] = [];
    await subscribeEvent(transport, 'job.dead_lettered', (e) => announced.push(e), logger);
    let calls = 0;
    const consumer = new JobConsumer({
      transport,
      queues: ['learn'],
      handlers: [
        handlerFor('learn.group', async () => {
          calls += 1;
          throw new PermanentJobError('group from a future policy version');
        }),
      ],
      logger,
    });
    consumer.start();
    const { jobId } = await new JobProducer(transport).enqueue('learn.group', samplePayloads('g9')['learn.group']);
    await waitFor(async () => (await transport.counts('learn-dead')).waiting === 1);
    expect(calls).toBe(1);
    expect(await transport.getJobData('learn-dead', `dl-${jobId}`)).toMatchObject({
      kind: 'rejected',
      reason: 'group from a future policy version',
    });
    await waitFor(() => announced.length === 1);
    expect(announced).toEqual([{ queue: 'learn', jobId }]);
    await consumer.close();
    await transport.close();
  });
});
