import type { EvalResult, PrismaClient } from './generated/client';
import { assertFinite } from './finite';

export type { EvalResult };

export interface EvalRow {
  evalId: string;
  runId?: string;
  checkpoint: string;
  split: string;
  taskType: string;
  lengthBucket: string;
  n: number;
  accuracy: number;
  meanTokens: number;
  meanLlmCalls: number;
}

/** Eval results, one row per (evalId, taskType, lengthBucket); recording an eval twice keeps the first. */
export class EvalRepository {
  constructor(private readonly prisma: PrismaClient) {}

  async recordMany(rows: readonly EvalRow[]): Promise<number> {
    for (const row of rows) {
      assertFinite(
        row as unknown as Record<string, unknown>,
        ['accuracy', 'meanTokens', 'meanLlmCalls'],
        `eval ${row.evalId}`,
      );
    }
    const { count } = await this.prisma.evalResult.createMany({ data: [...rows], skipDuplicates: true });
    return count;
  }

  list(filter: { checkpoint?: string; runId?: string } = {}): Promise<EvalResult[]> {
    return this.prisma.evalResult.findMany({
      where: filter,
      orderBy: [{ createdAt: 'asc' }, { taskType: 'asc' }, { lengthBucket: 'asc' }],
    });
  }
}
