import type { Logger } from '@fathom/observability';
import type { RunStatus } from '@fathom/persistence';
import { subscribeEvent, type JobTransport } from '@fathom/queue';

export interface EndedRunsOptions {
  /** Where a run's status is read: `RunRepository.endedStatus`. */
  source: { endedStatus(runId: string): Promise<RunStatus | null> };
  transport: Pick<JobTransport, 'subscribe'>;
  logger: Logger;
  /**
   * How long a run read as not ended is trusted without an event, so that an announcement lost with its Redis
   * connection delays the drop of obsolete jobs by at most this long (default 30 s).
   */
  recheckMs?: number;
  /** The clock, in ms (tests move it). */
  now?: () => number;
}

/**
 * Whether a group job's run has ended, for the services that drop the jobs of an ended run (rollout-worker,
 * reward-service) without reading Postgres for every job: a run read as not ended is remembered until an
 * announcement says its status changed (`run.stopping` from the admin API, `run.ended` from the learner), the
 * subscriptions come back after a lost connection, or `recheckMs` passes. An ended run is never remembered, because a
 * resume brings it back; its leftover jobs read Postgres each, as before.
 */
export class EndedRuns {
  /** Run id → when it was last read as not ended. */
  private readonly live = new Map<string, number>();
  /** Bumped by every announcement, so a read that was in flight when one came is not remembered. */
  private generation = 0;
  private unsubscribe: (() => Promise<void>)[] = [];

  constructor(private readonly o: EndedRunsOptions) {}

  /** Subscribes to the announcements; until it resolves every call reads Postgres. */
  async listen(): Promise<void> {
    const forget = (runId: string) => {
      this.generation++;
      this.live.delete(runId);
    };
    const options = {
      onResubscribed: () => {
        this.generation++;
        this.live.clear();
      },
    };
    this.unsubscribe = await Promise.all([
      subscribeEvent(this.o.transport, 'run.stopping', (e) => forget(e.runId), this.o.logger, options),
      subscribeEvent(this.o.transport, 'run.ended', (e) => forget(e.runId), this.o.logger, options),
    ]);
  }

  /** The run's status if it has ended (`stopped`, `completed`, `failed`), else null (also for an unknown run). */
  async endedStatus(runId: string): Promise<RunStatus | null> {
    const now = this.o.now ?? Date.now;
    const readAt = this.live.get(runId);
    if (readAt !== undefined && now() - readAt < (this.o.recheckMs ?? 30_000)) return null;
    const generation = this.generation;
    const status = await this.o.source.endedStatus(runId);
    if (status === null && generation === this.generation && this.unsubscribe.length > 0) this.live.set(runId, now());
    else this.live.delete(runId);
    return status;
  }

  async close(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = [];
    this.live.clear();
    await Promise.all(unsubscribe.map((u) => u()));
  }
}
