import type { Run, RunStatus } from '@fathom/persistence';
import { createLogger } from '@fathom/observability';
import { describe, expect, it } from 'vitest';
import { RunConfigSchema } from '@fathom/contracts';
import type { DataPathKind } from '../data-roots';
import type { AdminError } from '../errors';
import { RunService, type RunServiceDeps } from './run.service';
import type { StepSeries } from './step-series.reader';

/** TEST DOUBLE of the run repository: one run in memory; setStatus records what it was asked. */
function fakeRuns(status: RunStatus, movedUnderneathTo?: RunStatus, startedAt: Date | null = new Date(0)) {
  const run = { id: 'r1', name: 'r', status, startedAt } as Run;
  const asked: RunStatus[] = [];
  const created: string[] = [];
  const runs: RunServiceDeps['runs'] = {
    create: async (input) => {
      created.push(input.id);
      return run;
    },
    list: async () => [run],
    get: async (id) => (id === 'r1' ? { ...run } : null),
    setStatus: async (_id, next) => {
      asked.push(next);
      if (movedUnderneathTo) {
        run.status = movedUnderneathTo;
        throw new Error(`run r1 cannot go from ${movedUnderneathTo} to ${next}`);
      }
      run.status = next;
      return { ...run };
    },
  };
  const service = new RunService({
    runs,
    steps: { list: (() => Promise.resolve([])) as unknown as RunServiceDeps['steps']['list'] },
    episodes: { list: async () => ({ items: [], nextCursor: null }), get: async () => null },
    policies: { list: async () => [] },
    latestSteps: { latest: async () => new Map() },
    stepSeries: {
      series: async (runId) => ({ runId, steps: [], series: {} as StepSeries['series'], components: {} }),
    },
    newRunId: () => 'r1',
    dataRoots: ['/data'],
    // TEST DOUBLE of the filesystem: one checkpoint folder and one task file.
    paths: { kind: async (path) => FILES[path] ?? 'missing' },
    events: { publish: async () => undefined },
    logger: createLogger({ service: 'test', level: 'silent' }),
  });
  return { service, asked, created };
}

const FILES: Record<string, DataPathKind> = { '/data/ck': 'directory', '/data/tasks.jsonl': 'file' };

const code = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    return (error as AdminError).code;
  }
};

describe('RunService stop/resume', () => {
  it.each([
    ['pending', 'stopped'],
    ['running', 'stopping'],
    ['stopping', 'stopping'],
    ['stopped', 'stopped'],
  ] as const)('stop moves %s to %s', async (from, to) => {
    const { service, asked } = fakeRuns(from);
    expect((await service.stop('r1')).status).toBe(to);
    expect(asked).toEqual([to]);
  });

  it.each(['completed', 'failed'] as const)(
    'stop of a %s run is INVALID_TRANSITION and writes nothing',
    async (from) => {
      const { service, asked } = fakeRuns(from);
      expect(await code(service.stop('r1'))).toBe('INVALID_TRANSITION');
      expect(asked).toEqual([]);
    },
  );

  it.each([
    ['stopped', 'ok'],
    ['failed', 'ok'],
    ['running', 'ok'],
    ['pending', 'INVALID_TRANSITION'],
    ['stopping', 'INVALID_TRANSITION'],
    ['completed', 'INVALID_TRANSITION'],
  ] as const)('resume of a %s run: %s', async (from, expected) => {
    expect(await code(fakeRuns(from).service.resume('r1'))).toBe(expected);
  });

  it.each(['stopped', 'failed'] as const)(
    'resume of a %s run that never started is INVALID_TRANSITION and writes nothing',
    async (from) => {
      const { service, asked } = fakeRuns(from, undefined, null);
      await expect(service.resume('r1')).rejects.toMatchObject({
        code: 'INVALID_TRANSITION',
        message: `cannot resume run r1: it is ${from} and never started, so there is nothing to resume; create a new run`,
      });
      expect(asked).toEqual([]);
    },
  );

  it('reports the new status when the learner moved the run between read and write', async () => {
    const { service } = fakeRuns('running', 'completed');
    await expect(service.stop('r1')).rejects.toMatchObject({
      code: 'INVALID_TRANSITION',
      message: 'cannot stop run r1: it is now completed',
    });
  });

  it('an unknown run is RUN_NOT_FOUND; an unknown episode EPISODE_NOT_FOUND', async () => {
    const { service } = fakeRuns('running');
    expect(await code(service.stop('nope'))).toBe('RUN_NOT_FOUND');
    expect(await code(service.steps('nope', { fromStep: 0, limit: 1 }))).toBe('RUN_NOT_FOUND');
    expect(await code(service.series('nope', { fromStep: 0, limit: 1 }))).toBe('RUN_NOT_FOUND');
    expect(await code(service.episode(5n))).toBe('EPISODE_NOT_FOUND');
  });
});

describe('RunService create', () => {
  const config = (model: object, data: object = {}) => RunConfigSchema.parse({ name: 'r', model, data });
  const refusal = async (promise: Promise<unknown>) => {
    try {
      await promise;
    } catch (error) {
      const { code, message, details } = error as AdminError;
      return { code, message, details };
    }
    throw new Error('accepted');
  };

  it('creates a run whose checkpoints and task file are on disk, or that uses the shipped default model', async () => {
    const { service, created } = fakeRuns('pending');
    await service.create(config({}));
    await service.create(
      config({ checkpoint: '/data/ck', readerCheckpoint: '/data/ck' }, { trainFile: '/data/tasks.jsonl' }),
    );
    expect(created).toEqual(['r1', 'r1']);
  });

  it.each([
    [
      'a missing checkpoint folder',
      config({ checkpoint: '/data/nope' }),
      'model.checkpoint',
      'checkpoint folder "/data/nope" does not exist (/data/nope)',
    ],
    [
      'a file as a reader checkpoint',
      config({ readerCheckpoint: '/data/tasks.jsonl' }),
      'model.readerCheckpoint',
      'checkpoint folder "/data/tasks.jsonl" is a file, not a folder (/data/tasks.jsonl)',
    ],
    [
      'a missing task file',
      config({}, { trainFile: '/data/gone.jsonl' }),
      'data.trainFile',
      'file "/data/gone.jsonl" does not exist (/data/gone.jsonl)',
    ],
    [
      'a folder as the task file',
      config({}, { trainFile: '/data/ck' }),
      'data.trainFile',
      'file "/data/ck" is a folder, not a file (/data/ck)',
    ],
  ])(
    'refuses %s with a VALIDATION_ERROR naming the field and the path, and writes nothing',
    async (_label, run, field, why) => {
      const { service, created } = fakeRuns('pending');
      expect(await refusal(service.create(run))).toEqual({
        code: 'VALIDATION_ERROR',
        message: `invalid body: body.${field}: ${why}`,
        details: [{ path: ['body', ...field.split('.')], message: why, code: 'not_found' }],
      });
      expect(created).toEqual([]);
    },
  );
});
