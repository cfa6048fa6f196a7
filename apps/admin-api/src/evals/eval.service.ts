import type { EvalRunJob } from '@fathom/contracts';
import type { EvalResult, RunRepository } from '@fathom/persistence';
import type { JobProducer } from '@fathom/queue';
import { checkDataPath } from '../data-roots';
import { AdminError } from '../errors';
import type { EvalRequest } from './eval.schemas';
import type { EvalResultsReader, EvalSummary } from './eval-results.reader';

export interface EvalAccepted {
  evalId: string;
  jobId: string;
  /** Always "queued": the eval runs later, on whatever consumes the eval queue, and writes EvalResult rows. */
  status: 'queued';
  job: EvalRunJob;
}

/** GET /evals/:id: one evaluation and its rows (task type × context-length bucket). */
export interface EvalDetail extends EvalSummary {
  results: EvalResult[];
}

/**
 * Evaluation requests and results. POST /evals ENQUEUES an `eval.run` job on the `eval` queue (it does not record anything in
 * Postgres: EvalResult rows appear when the eval has run, under the returned evalId); GET /evals and
 * GET /evals/:id read those rows.
 */
export class EvalService {
  constructor(
    private readonly runs: Pick<RunRepository, 'get'>,
    private readonly producer: Pick<JobProducer, 'enqueue'>,
    private readonly newEvalId: () => string,
    private readonly results: Pick<EvalResultsReader, 'summaries' | 'rows'>,
    /** Where an evaluated checkpoint may be (`parseDataRoots`). */
    private readonly dataRoots: readonly string[],
  ) {}

  list(): Promise<EvalSummary[]> {
    return this.results.summaries();
  }

  async get(evalId: string): Promise<EvalDetail> {
    const results = await this.results.rows(evalId);
    if (results.length === 0) {
      throw new AdminError('EVAL_NOT_FOUND', `no results for eval ${evalId} (it does not exist or has not run yet)`);
    }
    const first = results[0];
    return {
      evalId,
      checkpoint: first.checkpoint,
      split: first.split,
      runId: first.runId,
      createdAt: new Date(Math.min(...results.map((r) => r.createdAt.getTime()))),
      rows: results.length,
      results,
    };
  }

  async request(request: EvalRequest): Promise<EvalAccepted> {
    checkDataPath(this.dataRoots, ['checkpoint'], request.checkpoint);
    if (request.runId !== undefined && !(await this.runs.get(request.runId))) {
      throw new AdminError('RUN_NOT_FOUND', `run ${request.runId} does not exist`);
    }
    const job: EvalRunJob = {
      evalId: this.newEvalId(),
      checkpoint: request.checkpoint,
      split: request.split,
      runId: request.runId ?? null,
      limit: request.limit ?? null,
      seed: request.seed,
    };
    const { jobId } = await this.producer.enqueue('eval.run', job);
    return { evalId: job.evalId, jobId, status: 'queued', job };
  }
}
