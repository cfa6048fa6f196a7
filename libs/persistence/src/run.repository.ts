import type { Prisma, PrismaClient, Run, RunStatus } from './generated/client';

export type { Run, RunStatus };

/** Which status changes a run may make; anything else is a caller bug and throws. */
const TRANSITIONS: Record<RunStatus, readonly RunStatus[]> = {
  pending: ['running', 'stopped', 'failed'],
  running: ['stopping', 'stopped', 'completed', 'failed'],
  stopping: ['stopped', 'failed'],
  stopped: ['running'],
  completed: [],
  failed: ['running'],
};

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

  list(options: { status?: RunStatus; limit?: number } = {}): Promise<Run[]> {
    return this.prisma.run.findMany({
      where: options.status ? { status: options.status } : undefined,
      orderBy: { createdAt: 'desc' },
      take: options.limit ?? 100,
    });
  }

  /**
   * Moves a run to `status`. Setting the status it already has is a no-op (a retried handler); a transition
   * the state machine forbids throws with both states named.
   */
  async setStatus(id: string, status: RunStatus, error?: string): Promise<Run> {
    return this.prisma.$transaction(async (tx) => {
      const run = await tx.run.findUnique({ where: { id } });
      if (!run) throw new Error(`run ${id} does not exist`);
      if (run.status === status) return run;
      if (!TRANSITIONS[run.status].includes(status)) {
        throw new Error(`run ${id} cannot go from ${run.status} to ${status}`);
      }
      const now = new Date();
      return tx.run.update({
        where: { id },
        data: {
          status,
          error: error ?? null,
          startedAt: status === 'running' && !run.startedAt ? now : undefined,
          finishedAt: ['stopped', 'completed', 'failed'].includes(status) ? now : null,
        },
      });
    });
  }

  /** Records the run's progress; never moves it backwards, so a replayed step changes nothing. */
  async advance(id: string, step: number, policyVersion: number): Promise<void> {
    await this.prisma.run.updateMany({
      where: { id, step: { lt: step } },
      data: { step, policyVersion },
    });
  }
}
