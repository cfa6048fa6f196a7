import { join } from 'node:path';
import { RunConfigSchema, type RunEndedEvent } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { PolicyVersionRepository, Run, RunRepository, StepRepository } from '@fathom/persistence';
import { waitOutOutages, type JobProducer, type JobTransport } from '@fathom/queue';
import type { RuntimeConfig } from '@fathom/tensor';
import { CheckpointStore, grpoTrainConfigOfRun, runGrpo, runTasks } from '@fathom/training';
import { DistributedCollector } from './distributed.collector';
import type { GroupInbox } from './group.inbox';
import type { LearnerMetrics } from './metrics';
import type { PolicyStore } from './policy.store';
import { stepRowOf } from './step.row';

export interface LearnerServiceDeps {
  runs: Pick<RunRepository, 'list' | 'get' | 'setStatus'>;
  steps: Pick<StepRepository, 'record'>;
  policyVersions: Pick<PolicyVersionRepository, 'record'>;
  producer: Pick<JobProducer, 'enqueueMany' | 'publish'>;
  transport: Pick<JobTransport, 'getJobData' | 'remove' | 'subscribe'>;
  inbox: GroupInbox;
  policies: PolicyStore;
  metrics: LearnerMetrics;
  logger: Logger;
  /** Run folders go to `${runsDir}/<runId>`. */
  runsDir: string;
  stepTimeoutMs: number;
  /** How long the run's own writes (Step, PolicyVersion, Run rows, events) wait out Postgres or Redis being down. */
  infraRetryMs: number;
  runtime?: RuntimeConfig;
}

/**
 * The learner: owns runs. `poll()` picks the run to train — a `running` run this learner is not training (after a
 * resume, or a restart of the learner: it continues from the run's last checkpoint), else the oldest `pending`
 * one — and trains it with `runGrpo` over the services (`DistributedCollector`), one run at a time. Every step
 * writes its Step and RewardComponentStat rows and advances the Run, in one transaction; every policy version is
 * served to workers, recorded as a PolicyVersion row and announced with `policy.updated`. A run set to `stopping` (POST
 * /runs/:id/stop) stops within a few seconds: before its next step, or mid-step, abandoning the step and removing
 * its waiting jobs from the queues (a resume runs that step again); it is checkpointed at its last completed step and
 * becomes `stopped`. A run that fails becomes `failed` with the reason.
 */
export class LearnerService {
  private active: { runId: string; done: Promise<void> } | null = null;

  constructor(private readonly deps: LearnerServiceDeps) {}

  /** The run being trained now, if any. */
  get activeRunId(): string | null {
    return this.active?.runId ?? null;
  }

  /** Starts training the next run if the learner is idle; returns the run id it started, or null. */
  async poll(): Promise<string | null> {
    if (this.active !== null) return null;
    const { runs } = this.deps;
    for (const orphan of await runs.list({ status: 'stopping' })) await this.end(orphan.id, 'stopped');
    const next = (await runs.list({ status: 'running' })).at(-1) ?? (await runs.list({ status: 'pending' })).at(-1);
    if (next === undefined) return null;
    const done = this.train(next).finally(() => {
      this.active = null;
    });
    this.active = { runId: next.id, done };
    return next.id;
  }

  /**
   * At shutdown: the run in training, if it is being stopped, becomes `stopped` now rather than waiting for the
   * next learner (its unfinished step is run again on resume); a `running` run stays so, for the next learner.
   */
  async close(): Promise<void> {
    const runId = this.activeRunId;
    if (runId === null || (await this.deps.runs.get(runId))?.status !== 'stopping') return;
    await this.end(runId, 'stopped');
    this.deps.logger.info('run stopped at shutdown', { run_id: runId });
  }

  /**
   * Sets a status that ends the run and announces it (`run.ended`), so the services that remember the run as live
   * drop its leftover jobs now; without the announcement (Redis unreachable) they read the status within 30 s.
   */
  private async end(runId: string, status: RunEndedEvent['status'], reason?: string): Promise<void> {
    await this.deps.runs.setStatus(runId, status, reason);
    await this.deps.producer
      .publish('run.ended', { runId, status })
      .catch((error: unknown) => this.deps.logger.warn('run end not announced', { run_id: runId, status, error }));
  }

  /** Waits for the active run (if any) to end. */
  async idle(): Promise<void> {
    await this.active?.done;
  }

  private async train(row: Run): Promise<void> {
    const { runs, logger: root } = this.deps;
    const logger = root.child({ run_id: row.id });
    const durable = <T>(write: () => Promise<T>) =>
      waitOutOutages(write, {
        budgetMs: this.deps.infraRetryMs,
        onWait: (wait) => logger.warn('infrastructure unreachable; retrying a write of the run', wait),
      });
    // A run that had started before is resumed (POST /runs/:id/resume, or a restart of the learner): its dead letters
    // from before now are set aside and their groups run again.
    const resumedAt = row.startedAt === null ? undefined : new Date();
    try {
      const parsed = RunConfigSchema.safeParse(row.config);
      if (!parsed.success) throw new Error(`stored config is invalid: ${parsed.error.message}`);
      const run = parsed.data;
      const out = join(this.deps.runsDir, row.id);
      const config = await grpoTrainConfigOfRun(run, out);
      const resume = (await new CheckpointStore(out).latest()) !== null;
      await runs.setStatus(row.id, 'running');
      this.deps.inbox.reset(row.id);
      logger.info(resume ? 'resuming run' : 'starting run', { steps: run.steps, out });
      let lastCheckpoint: { dir: string; step: number } | null = null;
      const isStopping = async () => (await runs.get(row.id))?.status === 'stopping';
      const collector = new DistributedCollector({
        runId: row.id,
        producer: this.deps.producer,
        transport: this.deps.transport,
        inbox: this.deps.inbox,
        logger,
        stepTimeoutMs: this.deps.stepTimeoutMs,
        shouldStop: isStopping,
        resumedAt,
        onRecreated: (reason) => this.deps.metrics.recreatedGroups.inc({ reason }),
      });
      const result = await runGrpo(config, {
        resume,
        tasks: await runTasks(run),
        runtime: this.deps.runtime,
        collector,
        shouldStop: isStopping,
        observer: {
          // A write the step depends on waits out a short outage instead of failing the run (all are idempotent).
          onPolicy: async ({ version, step, model }) => {
            const checkpointPath = lastCheckpoint?.step === step ? lastCheckpoint.dir : null;
            this.deps.policies.publish(row.id, version, step, model, checkpointPath, run.grpo.maxStaleness + 1);
            await durable(() =>
              this.deps.policyVersions.record({
                runId: row.id,
                version,
                step,
                checkpointPath: checkpointPath ?? undefined,
              }),
            );
            await durable(() =>
              this.deps.producer.publish('policy.updated', {
                runId: row.id,
                policyVersion: version,
                step,
                checkpointPath,
              }),
            );
          },
          onStep: async (record, groups) => {
            await durable(() => this.deps.steps.record(stepRowOf(row.id, record, groups)));
            this.deps.metrics.observeStep(row.id, record);
            logger.info('step done', {
              step: record.step,
              reward: record.reward,
              frac_reward_zero_std: record.frac_reward_zero_std,
              updated: record.updated,
              policy_version: record.policy_version,
            });
          },
          onCheckpoint: async (dir, step) => {
            lastCheckpoint = { dir, step };
            // Housekeeping: jobs it cannot remove now are tried again at the next checkpoint, or expire.
            await collector.release(step).then(
              (removed) => logger.info('queue jobs of checkpointed steps removed', { step, removed_jobs: removed }),
              (error: unknown) => logger.warn('could not remove the queue jobs of checkpointed steps', { step, error }),
            );
          },
        },
      });
      await this.end(row.id, result.stopped ? 'stopped' : 'completed');
      logger.info(result.stopped ? 'run stopped' : 'run completed', { policy_version: result.policyVersion });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      logger.error('run failed', { error });
      await this.end(row.id, 'failed', reason).catch((e: unknown) =>
        logger.error('could not mark run failed', { error: e }),
      );
    } finally {
      this.deps.policies.drop(row.id);
    }
  }
}
