import type { RunConfig } from '@fathom/contracts';
import type {
  EpisodeRepository,
  PolicyVersion,
  PolicyVersionRepository,
  Run,
  RunRepository,
  RunStatus,
  StepRepository,
  StoredEpisode,
} from '@fathom/persistence';
import type { Logger } from '@fathom/observability';
import type { JobProducer } from '@fathom/queue';
import { checkDataExists, checkDataPath, type DataPathProbe } from '../data-roots';
import { AdminError } from '../errors';
import type { LatestStep, LatestStepReader } from './latest-step.reader';
import type { StepSeries, StepSeriesReader } from './step-series.reader';
import type { EpisodesQuery } from './run.schemas';

/** What stop and resume move a run to, from each status; a status missing here is a 409. */
const ON_STOP: Partial<Record<RunStatus, RunStatus>> = {
  // Nothing has started: stop at once.
  pending: 'stopped',
  // The learner sees "stopping", finishes its step, then sets "stopped".
  running: 'stopping',
  stopping: 'stopping',
  stopped: 'stopped',
};
const ON_RESUME: Partial<Record<RunStatus, RunStatus>> = {
  // "running" is the learner's cue to resume from the run's last checkpoint and step; a run that never started
  // (stopped or failed while pending) has neither, and is refused below.
  stopped: 'running',
  failed: 'running',
  running: 'running',
};

export interface RunServiceDeps {
  runs: Pick<RunRepository, 'create' | 'get' | 'list' | 'setStatus'>;
  steps: Pick<StepRepository, 'list'>;
  episodes: Pick<EpisodeRepository, 'list' | 'get'>;
  policies: Pick<PolicyVersionRepository, 'list'>;
  latestSteps: Pick<LatestStepReader, 'latest'>;
  stepSeries: Pick<StepSeriesReader, 'series'>;
  /** A new run id (matching EntityIdSchema). */
  newRunId: () => string;
  /** Where a run's checkpoint and task file may be (`parseDataRoots`). */
  dataRoots: readonly string[];
  /** Whether they are on disk (`fsDataPathProbe`). */
  paths: DataPathProbe;
  /** Announces a stop (`run.stopping`) to the learner. */
  events: Pick<JobProducer, 'publish'>;
  logger: Logger;
}

/** Runs as the admin API exposes them: creation from a validated config, reads, and the stop/resume machine. */
export class RunService {
  constructor(private readonly deps: RunServiceDeps) {}

  /**
   * Records a run as pending, under a new id, with its parsed config (every default filled in). A checkpoint, frozen
   * reader or root checkpoint, or task file outside the data roots, or not on disk (a folder for a checkpoint, a file
   * for the task file), is a VALIDATION_ERROR naming it, and nothing is written.
   */
  async create(config: RunConfig): Promise<Run> {
    const paths: [string[], string | undefined, 'directory' | 'file'][] = [
      [['model', 'checkpoint'], config.model.checkpoint, 'directory'],
      [['model', 'readerCheckpoint'], config.model.readerCheckpoint, 'directory'],
      [['model', 'rootCheckpoint'], config.model.rootCheckpoint, 'directory'],
      [['data', 'trainFile'], config.data.trainFile, 'file'],
    ];
    for (const [field, value] of paths) if (value !== undefined) checkDataPath(this.deps.dataRoots, field, value);
    for (const [field, value, want] of paths)
      if (value !== undefined) await checkDataExists(this.deps.paths, field, value, want);
    return this.deps.runs.create({ id: this.deps.newRunId(), name: config.name, config });
  }

  /** Runs, newest first, each with its newest recorded step (null before the first). */
  async list(query: { status?: RunStatus; limit: number }): Promise<(Run & { latestStep: LatestStep | null })[]> {
    const runs = await this.deps.runs.list(query);
    const latest = await this.deps.latestSteps.latest(runs.map((r) => r.id));
    return runs.map((run) => ({ ...run, latestStep: latest.get(run.id) ?? null }));
  }

  async get(id: string): Promise<Run & { policyVersions: PolicyVersion[] }> {
    const run = await this.require(id);
    return { ...run, policyVersions: await this.deps.policies.list(id) };
  }

  async steps(id: string, query: { fromStep: number; limit: number }) {
    await this.require(id);
    return { runId: id, items: await this.deps.steps.list(id, query) };
  }

  /** The run's step metrics as chart-ready columns (what the dashboard's run page draws). */
  async series(id: string, query: { fromStep: number; limit: number }): Promise<StepSeries> {
    await this.require(id);
    return this.deps.stepSeries.series(id, query);
  }

  async episodes(id: string, query: EpisodesQuery) {
    await this.require(id);
    const { limit, cursor, ...filter } = query;
    return this.deps.episodes.list(id, filter, { limit, cursor });
  }

  async episode(id: bigint): Promise<StoredEpisode> {
    const episode = await this.deps.episodes.get(id);
    if (!episode) throw new AdminError('EPISODE_NOT_FOUND', `episode ${id} does not exist`);
    return episode;
  }

  /**
   * Marks the run `stopping` and announces it: the learner abandons the step it waits for at once. The stop is the
   * status; without the announcement (Redis unreachable) the learner sees it when its step ends.
   */
  async stop(id: string): Promise<Run> {
    const run = await this.transition(id, 'stop', ON_STOP);
    await this.deps.events
      .publish('run.stopping', { runId: id })
      .catch((error: unknown) =>
        this.deps.logger.warn('stop not announced; the learner sees it at the end of its step', { run_id: id, error }),
      );
    return run;
  }

  resume(id: string): Promise<Run> {
    return this.transition(id, 'resume', ON_RESUME);
  }

  private async transition(id: string, action: string, table: Partial<Record<RunStatus, RunStatus>>): Promise<Run> {
    const run = await this.require(id);
    const target = table[run.status];
    if (target === undefined) {
      throw new AdminError('INVALID_TRANSITION', `cannot ${action} run ${id}: it is ${run.status}`, {
        status: run.status,
      });
    }
    if (target === 'running' && run.status !== 'running' && run.startedAt === null) {
      throw new AdminError(
        'INVALID_TRANSITION',
        `cannot ${action} run ${id}: it is ${run.status} and never started, so there is nothing to resume; create a new run`,
        { status: run.status },
      );
    }
    try {
      return await this.deps.runs.setStatus(id, target);
    } catch (error) {
      // The learner moved the run between our read and our write; report the state it is in now.
      const now = await this.deps.runs.get(id);
      if (now && now.status !== run.status) {
        throw new AdminError('INVALID_TRANSITION', `cannot ${action} run ${id}: it is now ${now.status}`, {
          status: now.status,
        });
      }
      throw error;
    }
  }

  private async require(id: string): Promise<Run> {
    const run = await this.deps.runs.get(id);
    if (!run) throw new AdminError('RUN_NOT_FOUND', `run ${id} does not exist`);
    return run;
  }
}
