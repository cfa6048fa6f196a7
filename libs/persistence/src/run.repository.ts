import type { Prisma, PrismaClient, Run, RunStatus } from './generated/client';

export type { Run, RunStatus };

/**
 * Which status changes a run may make; anything else is a caller bug and throws. `stopping → completed` is a stop
 * that raced the last step: the learner finished the run, which is complete, not failed. `stopped/failed →
 * running` is a resume, allowed only for a run that started (a run stopped or failed while pending has no step
 * or checkpoint to resume from).
 */
const TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  pending: ['running', 'stopped', 'failed'],
  running: ['stopping', 'stopped', 'completed', 'failed'],
  stopping: ['stopped', 'completed', 'failed'],
  stopped: ['running'],
  completed: [],
  failed: ['running'],
};

const ENDED_STATUSES: readonly RunStatus[] = ['stopped', 'completed', 'failed'];

/** How often setStatus re-reads a run that another writer moved between its read and its write. */
const STATUS_WRITE_ATTEMPTS = 5;

/** Why `run` may not move to `status`, or null when it may. */
function transitionRefusal(run: Run, status: RunStatus): string | null {
  if (!TRANSITIONS[run.status].includes(status)) return `cannot go from ${run.status} to ${status}`;
  if (status === 'running' && run.status !== 'pending' && run.startedAt === null) {
    return `cannot go from ${run.status} to running: it never started`;
  }
  return null;
}

export interface NewRun {
  id: string;
  name: string;
  config: Prisma.InputJsonValue;
}

/** Runs: created once per id (creating an existing id returns it unchanged), moved through RunStatus. */
export class RunRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async create(run: NewRun): Promise<Run> {
    await this.prisma.run.createMany({ data: [run], skipDuplicates: true });
    return this.prisma.run.findUniqueOrThrow({ where: { id: run.id } });
  }

  get(id: string): Promise<Run | null> {
    return this.prisma.run.findUnique({ where: { id } });
  }

  /**
   * The status of a run that trains no more until a resume (`stopped`, `completed`, `failed`): its outstanding group
   * jobs are obsolete. Null for a run that is pending, running or stopping, and for an unknown one.
   */
  async endedStatus(id: string): Promise<RunStatus | null> {
    const run = await this.prisma.run.findUnique({ where: { id }, select: { status: true } });
    return run !== null && ENDED_STATUSES.includes(run.status) ? run.status : null;
  }

  list(options: { status?: RunStatus; limit?: number } = {}): Promise<Run[]> {
    return this.prisma.run.findMany({
      where: options.status ? { status: options.status } : undefined,
      orderBy: { createdAt: 'desc' },
      take: options.limit ?? 100,
    });
  }

  /**
   * Moves a run to `status`. Setting the status it already has is a no-op (a retried handler); a transition
   * the state machine forbids throws with both states named. The write is a compare-and-set on the status read,
   * so of two concurrent writers (the admin API's stop, the learner's end of run) each is checked against the
   * state the other left, never against a stale one.
   */
  async setStatus(id: string, status: RunStatus, error?: string): Promise<Run> {
    for (let attempt = 1; ; attempt++) {
      const run = await this.prisma.run.findUnique({ where: { id } });
      if (!run) throw new Error(`run ${id} does not exist`);
      if (run.status === status) return run;
      const refusal = transitionRefusal(run, status);
      if (refusal !== null) throw new Error(`run ${id} ${refusal}`);
      const now = new Date();
      const { count } = await this.prisma.run.updateMany({
        where: { id, status: run.status },
        data: {
          status,
          error: error ?? null,
          startedAt: status === 'running' && !run.startedAt ? now : undefined,
          finishedAt: ENDED_STATUSES.includes(status) ? now : null,
        },
      });
      if (count === 1) return this.prisma.run.findUniqueOrThrow({ where: { id } });
      if (attempt === STATUS_WRITE_ATTEMPTS) {
        throw new Error(`run ${id}: status kept changing under ${STATUS_WRITE_ATTEMPTS} attempts to set ${status}`);
      }
    }
  }
}
