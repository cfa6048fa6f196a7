import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_MODEL_CHECKPOINT, type EvalRunJob } from '@fathom/contracts';
import { loadCheckpoint, ModelGraphs } from '@fathom/model';
import type { Logger } from '@fathom/observability';
import { evalRowsOf, type EvalRepository } from '@fathom/persistence';
import { PermanentJobError } from '@fathom/queue';
import { DEFAULT_PROMPT_STYLE, evaluate, SamplerPolicy } from '@fathom/rlm';
import type { SandboxPool } from '@fathom/sandbox';
import { DEFAULT_SPLIT_SIZES, generateTasks } from '@fathom/tasks';
import { DEFAULT_POLICY_DIR, readPromptStyle } from '@fathom/training';
import type { RuntimeConfig } from '@fathom/tensor';

export interface EvalServiceDeps {
  sandbox: Pick<SandboxPool, 'openEpisode'>;
  results: Pick<EvalRepository, 'recordMany'>;
  runtime?: RuntimeConfig;
}

/**
 * The checkpoint folder an eval job names ("default" is the shipped policy); a relative path is from the working
 * directory, as the admin API checked it against DATA_ROOTS.
 */
export function evalCheckpointDir(checkpoint: string): string {
  return checkpoint === DEFAULT_MODEL_CHECKPOINT ? DEFAULT_POLICY_DIR : resolve(checkpoint);
}

/**
 * One eval.run job (POST /evals): the checkpoint, greedy, one episode per task of the generated split (the first
 * `limit` tasks, data seed = the job's seed), in this worker's sandbox pool; the report becomes EvalResult rows under
 * the job's evalId. A checkpoint that does not exist fails the job for good (dead-lettered with the reason).
 * Re-running a job records nothing new (rows are keyed by evalId, type and bucket).
 */
export class EvalService {
  constructor(private readonly deps: EvalServiceDeps) {}

  async handle(job: EvalRunJob, logger: Logger): Promise<void> {
    const dir = evalCheckpointDir(job.checkpoint);
    if (!existsSync(join(dir, 'config.json')))
      throw new PermanentJobError(`eval ${job.evalId}: no checkpoint at ${dir}`);
    const checkpoint = await loadCheckpoint(dir);
    if (checkpoint.tokenizer === null) throw new PermanentJobError(`eval ${job.evalId}: ${dir} has no tokenizer.json`);
    const tasks = [
      ...generateTasks({ split: job.split, n: job.limit ?? DEFAULT_SPLIT_SIZES[job.split], seed: job.seed }),
    ];
    const graphs = new ModelGraphs(checkpoint.config, { kind: 'full' }, this.deps.runtime);
    const decoder = graphs.decoder(checkpoint.params);
    try {
      const report = await evaluate(new SamplerPolicy(decoder, checkpoint.tokenizer, 0), tasks, {
        sandbox: this.deps.sandbox,
        mode: 'greedy',
        seed: job.seed,
        // The episode config's defaults, as `fathom eval` runs with, so both report the same thing for a checkpoint.
        episode: { promptStyle: (await readPromptStyle(dir)) ?? DEFAULT_PROMPT_STYLE },
        concurrency: 2,
      });
      const written = await this.deps.results.recordMany(evalRowsOf(job, report));
      logger.info('eval done', {
        checkpoint: job.checkpoint,
        split: job.split,
        tasks: tasks.length,
        accuracy: report.overall.accuracy,
        rows: written,
      });
    } finally {
      await decoder.release();
      await graphs.release();
    }
  }
}
