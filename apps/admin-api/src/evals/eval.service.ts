import type { EvalRunJob } from '@fathom/contracts';
import type { RunRepository } from '@fathom/persistence';
import type { JobProducer } from '@fathom/queue';
import { AdminError } from '../errors';
import type { EvalRequest } from './eval.schemas';

export interface EvalAccepted {
  evalId: string;
  jobId: string;
  /** Always "queued": the eval runs later, on whatever consumes the eval queue, and writes EvalResult rows. */
  status: 'queued';
  job: EvalRunJob;
}

/**
 * Evaluation requests. POST /evals ENQUEUES an `eval.run` job on the `eval` queue (it does not record anything in
 * Postgres: EvalResult rows appear when the eval has run, under the returned evalId).
 */
export class EvalService {
  constructor(
    private readonly runs: Pick<RunRepository, 'get'>,
    private readonly producer: Pick<JobProducer, 'enqueue'>,
    private readonly newEvalId: () => string,
  ) {}

  async request(request: EvalRequest): Promise<EvalAccepted> {
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
