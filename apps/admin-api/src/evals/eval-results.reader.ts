import type { EvalResult, PrismaClient } from '@fathom/persistence';

/** One evaluation (one checkpoint on one split), as GET /evals lists it. */
export interface EvalSummary {
  evalId: string;
  checkpoint: string;
  split: string;
  runId: string | null;
  /** When its first row was written. */
  createdAt: Date;
  /** Rows it holds (task type × length bucket, the "all" rows included). */
  rows: number;
}

/** Reads EvalResult rows, grouped by the evaluation (evalId) that wrote them. */
export class EvalResultsReader {
  constructor(private readonly prisma: PrismaClient) {}

  /** Every evaluation, oldest first (so checkpoints read in training order). */
  async summaries(): Promise<EvalSummary[]> {
    const groups = await this.prisma.evalResult.groupBy({
      by: ['evalId', 'checkpoint', 'split', 'runId'],
      _min: { createdAt: true },
      _count: { _all: true },
    });
    return groups
      .map((g) => ({
        evalId: g.evalId,
        checkpoint: g.checkpoint,
        split: g.split,
        runId: g.runId,
        createdAt: g._min.createdAt ?? new Date(0),
        rows: g._count._all,
      }))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.evalId.localeCompare(b.evalId));
  }

  /** The rows of one evaluation, by task type then length bucket; empty when the id is unknown. */
  rows(evalId: string): Promise<EvalResult[]> {
    return this.prisma.evalResult.findMany({
      where: { evalId },
      orderBy: [{ taskType: 'asc' }, { lengthBucket: 'asc' }],
    });
  }
}
