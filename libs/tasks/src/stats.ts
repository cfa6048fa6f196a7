import { TASK_TYPES, type Task, type TaskType } from '@fathom/contracts';

/** Summary of a distribution (nearest-rank percentiles). */
export interface Distribution {
  min: number;
  median: number;
  p90: number;
  max: number;
  mean: number;
}

export interface DatasetStats {
  tasks: number;
  bySplit: Record<string, number>;
  byType: Record<TaskType, number>;
  /** Tasks per phrasing family (`meta.phrasing.family`; "none" for tasks without meta, e.g. users' own). */
  byFamily: Record<string, number>;
  /** Context size by the shared estimator (`context_tokens`). Absent for an empty dataset. */
  contextTokens?: Distribution;
  /** Needle depths (0 = start of the document, 1 = end). Absent when no task has needles. */
  needleDepth?: Distribution;
  /** Per type: the fraction of that type's tasks carrying each variant tag seen. */
  variantRates: Record<TaskType, Record<string, number>>;
  /** Per type: answers' distinct count, the most common answer's share, and numeric answers' distribution. */
  answers: Record<TaskType, { distinct: number; topShare: number; numeric?: Distribution }>;
}

function distribution(values: number[]): Distribution | undefined {
  if (values.length === 0) return undefined;
  const sorted = Float64Array.from(values).sort();
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { min: sorted[0], median: rank(0.5), p90: rank(0.9), max: sorted[sorted.length - 1], mean };
}

/**
 * Accumulates dataset statistics one task at a time, keeping only numbers and answers (never contexts), so a
 * multi-gigabyte file can be summarised while streaming.
 */
export class DatasetStatsAccumulator {
  private readonly tokens: number[] = [];
  private readonly depths: number[] = [];
  private readonly bySplit: Record<string, number> = {};
  private readonly byType = Object.fromEntries(TASK_TYPES.map((t) => [t, 0])) as Record<TaskType, number>;
  private readonly byFamily: Record<string, number> = {};
  private readonly variantCounts = Object.fromEntries(TASK_TYPES.map((t) => [t, new Map<string, number>()])) as Record<
    TaskType,
    Map<string, number>
  >;
  private readonly answerCounts = Object.fromEntries(TASK_TYPES.map((t) => [t, new Map<string, number>()])) as Record<
    TaskType,
    Map<string, number>
  >;

  add(task: Task): void {
    this.tokens.push(task.context_tokens);
    for (const p of task.needle_positions) this.depths.push(p.depth);
    this.bySplit[task.split] = (this.bySplit[task.split] ?? 0) + 1;
    this.byType[task.type]++;
    const family = task.meta?.phrasing.family ?? 'none';
    this.byFamily[family] = (this.byFamily[family] ?? 0) + 1;
    const variants = this.variantCounts[task.type];
    for (const v of new Set(task.variants)) variants.set(v, (variants.get(v) ?? 0) + 1);
    const answers = this.answerCounts[task.type];
    answers.set(task.answer, (answers.get(task.answer) ?? 0) + 1);
  }

  result(): DatasetStats {
    const variantRates = {} as DatasetStats['variantRates'];
    const answers = {} as DatasetStats['answers'];
    for (const type of TASK_TYPES) {
      const n = this.byType[type];
      variantRates[type] = Object.fromEntries(
        [...this.variantCounts[type]].sort(([a], [b]) => a.localeCompare(b)).map(([v, c]) => [v, c / n]),
      );
      const counts = this.answerCounts[type];
      const numbers = [...counts]
        .filter(([a]) => /^-?\d+(\.\d+)?$/.test(a))
        .flatMap(([a, c]) => Array<number>(c).fill(Number(a)));
      const numeric = n > 0 && numbers.length === n ? distribution(numbers) : undefined;
      answers[type] = {
        distinct: counts.size,
        topShare: n === 0 ? 0 : Math.max(0, ...counts.values()) / n,
        ...(numeric ? { numeric } : {}),
      };
    }
    const contextTokens = distribution(this.tokens);
    const needleDepth = distribution(this.depths);
    return {
      tasks: this.tokens.length,
      bySplit: { ...this.bySplit },
      byType: { ...this.byType },
      byFamily: { ...this.byFamily },
      ...(contextTokens ? { contextTokens } : {}),
      ...(needleDepth ? { needleDepth } : {}),
      variantRates,
      answers,
    };
  }
}

/** Statistics of an in-memory collection of tasks (see DatasetStatsAccumulator for streaming). */
export function datasetStats(tasks: Iterable<Task>): DatasetStats {
  const acc = new DatasetStatsAccumulator();
  for (const task of tasks) acc.add(task);
  return acc.result();
}
