import type { PrismaClient } from '@fathom/persistence';

/** A run's newest recorded step, as the run list shows it. */
export interface LatestStep {
  step: number;
  rewardMean: number;
}

/** The newest Step row of each of a set of runs, in one query (the Step primary key (runId, step) serves it). */
export class LatestStepReader {
  constructor(private readonly prisma: PrismaClient) {}

  async latest(runIds: readonly string[]): Promise<Map<string, LatestStep>> {
    if (runIds.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ runId: string; step: number; rewardMean: number }[]>`
      SELECT DISTINCT ON ("runId") "runId", "step", "rewardMean"
      FROM "Step" WHERE "runId" = ANY(${[...runIds]}::text[])
      ORDER BY "runId", "step" DESC`;
    return new Map(rows.map((r) => [r.runId, { step: r.step, rewardMean: r.rewardMean }]));
  }
}
