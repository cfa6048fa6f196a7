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

/** The figures of one group of an eval report that a row keeps (a subset of `EvalStats` of `@fathom/rlm`). */
export interface EvalRowFigures {
  n: number;
  accuracy: number;
  meanTokens: number;
  meanLlmCalls: number;
}

/** The groups of an eval report that become rows (`EvalReport` of `@fathom/rlm`). */
export interface EvalRowSource {
  overall: EvalRowFigures;
  byType: Partial<Record<string, EvalRowFigures>>;
  byBucket: Partial<Record<string, EvalRowFigures>>;
}

/**
 * The EvalResult rows of one evaluation's report: overall ("all"/"all"), per task type, per context-length bucket.
 * The one mapping, shared by queued evals (the rollout worker) and `fathom eval --record`.
 */
export function evalRowsOf(
  evaluation: { evalId: string; runId?: string | null; checkpoint: string; split: string },
  report: EvalRowSource,
): EvalRow[] {
  const row = (taskType: string, lengthBucket: string, s: EvalRowFigures): EvalRow => ({
    evalId: evaluation.evalId,
    runId: evaluation.runId ?? undefined,
    checkpoint: evaluation.checkpoint,
    split: evaluation.split,
    taskType,
    lengthBucket,
    n: s.n,
    accuracy: s.accuracy,
    meanTokens: s.meanTokens,
    meanLlmCalls: s.meanLlmCalls,
  });
  const groups = (of: Partial<Record<string, EvalRowFigures>>) =>
    Object.entries(of).filter((entry): entry is [string, EvalRowFigures] => entry[1] !== undefined);
  return [
    row('all', 'all', report.overall),
    ...groups(report.byType).map(([type, s]) => row(type, 'all', s)),
    ...groups(report.byBucket).map(([bucket, s]) => row('all', bucket, s)),
  ];
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
