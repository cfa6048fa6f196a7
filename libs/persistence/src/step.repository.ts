import type { Prisma, PrismaClient, RewardComponentStat, Step } from './generated/client';
import { assertFinite } from './finite';

export type { Step, RewardComponentStat };

export interface StepRecord {
  runId: string;
  step: number;
  policyVersion: number;
  loss: number;
  kl: number;
  clipRatio: number;
  rewardMean: number;
  rewardStd: number;
  fracRewardZeroStd: number;
  groupsSubmitted: number;
  groupsTrainable: number;
  tokens: number;
  timings: Record<string, number>;
  metrics: Prisma.InputJsonObject;
  /** Mean and std of every reward component over the step's episodes. */
  components: { component: string; mean: number; std: number }[];
}

const METRIC_FIELDS = ['loss', 'kl', 'clipRatio', 'rewardMean', 'rewardStd', 'fracRewardZeroStd'] as const;

/**
 * Per-step metrics and reward-component statistics, written together with the run's progress; a step is written at
 * most once.
 */
export class StepRepository {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * Writes the step and its component rows, and advances the run to this step and policy version (never back), in
   * one transaction. Returns false if the step already existed (then nothing is written).
   */
  async record(record: StepRecord): Promise<boolean> {
    const what = `step ${record.step} of run ${record.runId}`;
    assertFinite(record as unknown as Record<string, unknown>, METRIC_FIELDS, what);
    for (const c of record.components) assertFinite(c, ['mean', 'std'], `${what}, component ${c.component}`);
    const { components, ...step } = record;
    return this.prisma.$transaction(async (tx) => {
      const { count } = await tx.step.createMany({ data: [step], skipDuplicates: true });
      if (count === 0) return false;
      await tx.rewardComponentStat.createMany({
        data: components.map((c) => ({ runId: record.runId, step: record.step, ...c })),
      });
      await tx.run.updateMany({
        where: { id: record.runId, step: { lt: record.step } },
        data: { step: record.step, policyVersion: record.policyVersion },
      });
      return true;
    });
  }

  list(runId: string, options: { fromStep?: number; limit?: number } = {}) {
    return this.prisma.step.findMany({
      where: { runId, step: { gte: options.fromStep ?? 0 } },
      orderBy: { step: 'asc' },
      take: options.limit ?? 1000,
      include: { components: true },
    });
  }
}
