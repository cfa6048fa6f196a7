import { RunConfigSchema, type Task } from '@fathom/contracts';
import { loadTokenizer, type Tokenizer } from '@fathom/model';
import type { GrpoTrainConfig } from './config';
import { grpoTrainConfigOfRun, runCheckpointDir, runTasks } from './run.config';

/** What a service needs to work on a run's groups: the train config the run maps to, its tasks and tokenizer. */
export interface RunContext {
  /** The `fathom train` config the run maps to (episode limits, prompt style, reward). */
  train: GrpoTrainConfig;
  tasks: ReadonlyMap<string, Task>;
  tokenizer: Tokenizer;
}

/** Where stored run configs come from (the Run table: `RunRepository` fits). */
export interface RunConfigSource {
  get(runId: string): Promise<{ config: unknown } | null>;
}

/** A run the worker cannot roll out at all (unknown id, unusable config): retrying does not help. */
export class UnknownRunError extends Error {
  override name = 'UnknownRunError';
}

/**
 * Run contexts for the rollout and reward services, built once per run from its stored config and cached: the
 * train config comes from the mapping the learner uses (`grpoTrainConfigOfRun`), the tasks from the same
 * deterministic list (`runTasks`), the tokenizer from the run's starting checkpoint (weights come from the learner;
 * the tokenizer never changes during a run).
 */
export class RunContextCache {
  private readonly contexts = new Map<string, Promise<RunContext>>();

  constructor(
    private readonly runs: RunConfigSource,
    private readonly maxRuns = 4,
  ) {}

  get(runId: string): Promise<RunContext> {
    let context = this.contexts.get(runId);
    if (context === undefined) {
      context = this.load(runId);
      context.catch(() => this.contexts.delete(runId));
      this.contexts.set(runId, context);
      if (this.contexts.size > this.maxRuns) this.contexts.delete(this.contexts.keys().next().value!);
    }
    return context;
  }

  /**
   * The context of `runId` and its task `taskId`. Throws UnknownRunError for an unknown run or task (a job that no
   * retry can fix); any other error is transient (the database was unreachable).
   */
  async task(runId: string, taskId: string): Promise<{ context: RunContext; task: Task }> {
    const context = await this.get(runId);
    const task = context.tasks.get(taskId);
    if (task === undefined) throw new UnknownRunError(`run ${runId} has no task ${taskId}`);
    return { context, task };
  }

  private async load(runId: string): Promise<RunContext> {
    const row = await this.runs.get(runId);
    if (row === null) throw new UnknownRunError(`run ${runId} does not exist`);
    const parsed = RunConfigSchema.safeParse(row.config);
    if (!parsed.success)
      throw new UnknownRunError(`run ${runId} has an invalid stored config: ${parsed.error.message}`);
    const run = parsed.data;
    let train: GrpoTrainConfig;
    try {
      train = await grpoTrainConfigOfRun(run, `runs/${runId}`);
    } catch (error) {
      throw new UnknownRunError(`run ${runId}: ${(error as Error).message}`);
    }
    const tokenizer = await loadTokenizer(runCheckpointDir(run));
    if (tokenizer === null) throw new UnknownRunError(`run ${runId}: its checkpoint has no tokenizer.json`);
    const tasks = await runTasks(run);
    return { train, tasks: new Map(tasks.map((t) => [t.id, t])), tokenizer };
  }
}
