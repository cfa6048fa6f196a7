import { groupId, type RewardGroupJob } from '@fathom/contracts';
import { createLogger, createMetricsRegistry } from '@fathom/observability';
import type { RunStatus } from '@fathom/persistence';
import { PermanentJobError } from '@fathom/queue';
import { RunContextCache, UnknownRunError, type RunContext } from '@fathom/training';
import { tinyTasks } from '@fathom/training/testing';
import { describe, expect, it, vi } from 'vitest';
import { RewardMetrics } from './metrics';
import { RewardService } from './reward.service';

const job = (taskId: string): RewardGroupJob => ({
  runId: 'run-1',
  step: 1,
  groupId: groupId(1, 0),
  taskId,
  policyVersion: 0,
  trajectories: [],
  excluded: [],
  infraFailures: [],
  generationMs: 1,
  weightSyncMs: 0,
});

function service(context: Promise<RunContext>, ended: RunStatus | null = null) {
  const contexts = new RunContextCache({ get: async () => null });
  contexts.get = () => context;
  const episodes = { recordMany: vi.fn(async () => 0) };
  const producer = { enqueue: vi.fn(async () => ({ jobId: 'x', added: true })) };
  const svc = new RewardService({
    runs: { endedStatus: async () => ended },
    contexts,
    episodes,
    producer,
    metrics: new RewardMetrics(createMetricsRegistry({ service: 'test', defaultMetrics: false })),
  });
  return { svc, episodes, producer };
}

const logger = createLogger({ service: 'test', level: 'silent' });

describe('RewardService', () => {
  it('fails a group of an unknown run or task for good (dead letter, no retries) and writes nothing', async () => {
    const unknownRun = service(Promise.reject(new UnknownRunError('run run-1 does not exist')));
    await expect(unknownRun.svc.handle(job('t0'), logger)).rejects.toThrow(PermanentJobError);
    const [task] = tinyTasks(1);
    const context = { tasks: new Map([[task.id, task]]) } as unknown as RunContext;
    const unknownTask = service(Promise.resolve(context));
    await expect(unknownTask.svc.handle(job('t9'), logger)).rejects.toThrow(/run run-1 has no task t9/);
    expect(unknownTask.episodes.recordMany).not.toHaveBeenCalled();
    expect(unknownTask.producer.enqueue).not.toHaveBeenCalled();
  });

  it('drops a group of a run that has ended: it resolves (no retry, no dead letter) and scores nothing', async () => {
    const { svc, episodes, producer } = service(new Promise<RunContext>(() => {}), 'stopped');
    await expect(svc.handle(job('t0'), logger)).resolves.toBeUndefined();
    expect(episodes.recordMany).not.toHaveBeenCalled();
    expect(producer.enqueue).not.toHaveBeenCalled();
  });

  it('retries (a plain error) when the run context cannot be loaded for a transient reason', async () => {
    const { svc } = service(Promise.reject(new Error('connection reset')));
    const failure = await svc.handle(job('t0'), logger).catch((e: unknown) => e);
    expect(failure).not.toBeInstanceOf(PermanentJobError);
  });
});
