import { deadLetterQueueOf, groupId, type RolloutGroupJob } from '@fathom/contracts';
import { createLogger, createMetricsRegistry } from '@fathom/observability';
import { handlerFor, InProcessTransport, JobConsumer, JobProducer } from '@fathom/queue';
import { describe, expect, it, vi } from 'vitest';
import { RolloutMetrics } from './metrics';
import { RolloutService, type RolloutServiceDeps } from './rollout.service';

const logger = createLogger({ service: 'test', level: 'silent' });

const job: RolloutGroupJob = {
  runId: 'run-1',
  step: 2,
  groupId: groupId(2, 0),
  taskId: 't0',
  policyVersion: 1,
  G: 4,
  seed: 9,
};

/** An in-process consumer of the rollout queue handled by `service`, with `job` enqueued. */
async function consume(service: RolloutService) {
  const transport = new InProcessTransport();
  const consumer = new JobConsumer({
    transport,
    queues: ['rollout'],
    handlers: [handlerFor('rollout.group', (group, context) => service.handle(group, context.logger))],
    logger,
  });
  consumer.start();
  await new JobProducer(transport).enqueue('rollout.group', job);
  return { transport, consumer };
}

describe('RolloutService', () => {
  it('drops a group of a stopped run at once: no rollout, no reward job, no retry and no dead letter', async () => {
    const contexts = { task: vi.fn() };
    const policies = { with: vi.fn(), newestVersion: vi.fn() };
    const producer = { enqueue: vi.fn() };
    const service = new RolloutService({
      runs: { endedStatus: async () => 'stopped' },
      contexts,
      policies,
      frozen: { policy: vi.fn() },
      sandbox: { openEpisode: vi.fn() },
      environment: false,
      producer,
      metrics: new RolloutMetrics(createMetricsRegistry({ service: 'test', defaultMetrics: false })),
    });
    const { transport, consumer } = await consume(service);
    await vi.waitFor(async () => expect((await transport.counts('rollout')).completed).toBe(1));
    expect(await transport.counts('rollout')).toMatchObject({ failed: 0, delayed: 0, waiting: 0 });
    expect((await transport.counts(deadLetterQueueOf('rollout'))).waiting).toBe(0);
    expect(contexts.task).not.toHaveBeenCalled();
    expect(policies.with).not.toHaveBeenCalled();
    expect(producer.enqueue).not.toHaveBeenCalled();
    await consumer.close();
    await transport.close();
  });

  it("dead-letters a group of a run scored by its environment when the worker's sandbox is its own pool", async () => {
    const policies = { with: vi.fn(), newestVersion: vi.fn() };
    const service = new RolloutService({
      runs: { endedStatus: async () => null },
      contexts: { task: vi.fn(async () => ({ context: { train: { episode: { submitAnswers: true } } }, task: {} })) },
      policies,
      frozen: { policy: vi.fn() },
      sandbox: { openEpisode: vi.fn() },
      environment: false,
      producer: { enqueue: vi.fn() },
      metrics: new RolloutMetrics(createMetricsRegistry({ service: 'test', defaultMetrics: false })),
    } as unknown as RolloutServiceDeps);
    const { transport, consumer } = await consume(service);
    const dead = deadLetterQueueOf('rollout');
    await vi.waitFor(async () => expect((await transport.counts(dead)).waiting).toBe(1));
    const [failed] = await transport.failedJobs('rollout', 1);
    expect(failed?.reason).toMatch(/reward\.source is "env".*ENV_URL/);
    expect(policies.with).not.toHaveBeenCalled();
    await consumer.close();
    await transport.close();
  });
});
