import { JOB_NAMES, type JobName, type JobPayload, type QueueName } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import { QueueError } from './errors';

/** What a handler knows about the job besides its payload. */
export interface JobContext {
  id: string;
  name: JobName;
  queue: QueueName;
  /** 1 for the first try. */
  attempt: number;
  maxAttempts: number;
  /** Aborted when shutdown releases the job to another worker: stop and let the next worker redo it. */
  signal: AbortSignal;
  /** A logger bound to the job (job id, run, step, group). */
  logger: Logger;
}

/**
 * Handles one validated job. Must be idempotent (delivery is at-least-once). Throw PermanentJobError for a failure
 * a retry cannot fix (the job is dead-lettered at once); any other error is retried with backoff.
 */
export type JobHandler<N extends JobName> = (payload: JobPayload<N>, context: JobContext) => Promise<void>;

export interface HandlerRegistration<N extends JobName = JobName> {
  name: N;
  handle: JobHandler<N>;
}

/** Pairs a job name with its handler so the payload type follows the name. */
export function handlerFor<N extends JobName>(name: N, handle: JobHandler<N>): HandlerRegistration<N> {
  return { name, handle };
}

/** The names a handler registry got wrong; every list is empty when it is right. */
export interface HandlerMismatch {
  missing: JobName[];
  duplicate: JobName[];
  unexpected: JobName[];
}

/**
 * The boot check: every name in `expected` has exactly one handler and no handler is registered for another name.
 * Throws one QueueError (HANDLER_MISMATCH) naming every missing, duplicate and unexpected name; returns the
 * handlers by name.
 */
export function checkHandlers(
  registrations: readonly HandlerRegistration[],
  expected: readonly JobName[] = JOB_NAMES,
): Map<JobName, HandlerRegistration> {
  const byName = new Map<JobName, HandlerRegistration>();
  const duplicate = new Set<JobName>();
  for (const registration of registrations) {
    if (byName.has(registration.name)) duplicate.add(registration.name);
    else byName.set(registration.name, registration);
  }
  const mismatch: HandlerMismatch = {
    missing: expected.filter((name) => !byName.has(name)),
    duplicate: [...duplicate],
    unexpected: [...byName.keys()].filter((name) => !expected.includes(name)),
  };
  const problems = (Object.entries(mismatch) as [keyof HandlerMismatch, JobName[]][])
    .filter(([, names]) => names.length > 0)
    .map(([kind, names]) => `${kind}: ${names.join(', ')}`);
  if (problems.length > 0) throw new QueueError('HANDLER_MISMATCH', problems.join('; '), mismatch);
  return byName;
}
