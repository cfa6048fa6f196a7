import type { PrismaClient } from '@fathom/persistence';

/**
 * The per-step series the dashboard charts, and where each comes from: a Step column, or the first of several
 * paths into Step.metrics that holds a finite number (Step.metrics is the learner's whole metrics.jsonl record,
 * libs/training's stepRecord, with TRL's names; older names are kept as fall-backs). A step that recorded none of
 * them has null there, never a guess.
 */
export const STEP_SERIES = {
  reward_mean: { column: 'rewardMean' },
  frac_reward_zero_std: { column: 'fracRewardZeroStd' },
  // The learner writes 0 in these columns for a step without an update (metrics.updated = false): no value.
  kl: { column: 'kl', updateOnly: true },
  loss: { column: 'loss', updateOnly: true },
  clip_ratio: { column: 'clipRatio', updateOnly: true },
  completion_length: { metrics: [['completions/mean_length'], ['completion_length']] },
  llm_calls: { metrics: [['llm_calls'], ['llm_calls_mean']] },
  tokens_per_s: { metrics: [['time', 'tokens_per_s'], ['tokens_per_s']] },
} as const satisfies Record<
  string,
  { column: StepColumn; updateOnly?: boolean } | { metrics: readonly (readonly string[])[] }
>;

type StepColumn = 'rewardMean' | 'fracRewardZeroStd' | 'kl' | 'loss' | 'clipRatio';
export type StepSeriesName = keyof typeof STEP_SERIES;

/** A run's step metrics as columns: `steps[i]` is the step of every series' i-th value. */
export interface StepSeries {
  runId: string;
  steps: number[];
  series: Record<StepSeriesName, (number | null)[]>;
  /** Mean of each reward component (RewardComponentStat) per step; null where a step lacks the component. */
  components: Record<string, (number | null)[]>;
}

/**
 * The SELECT list of the series query. Its text comes only from the constants above; values (run id, range, the
 * paths into the metrics JSON) are bound parameters from `$4` on.
 */
function seriesQuery(): { sql: string; paths: string[][] } {
  const paths: string[][] = [];
  const columns = Object.entries(STEP_SERIES).map(([name, source]) => {
    if ('column' in source) {
      return 'updateOnly' in source
        ? `CASE WHEN "metrics" @> '{"updated": false}'::jsonb THEN NULL ELSE "${source.column}" END AS "${name}"`
        : `"${source.column}" AS "${name}"`;
    }
    // The first path that holds a JSON number wins; anything else (absent, a string, an object) is null.
    const cases = source.metrics.map((path) => {
      paths.push([...path]);
      const p = `$${paths.length + 3}::text[]`;
      return `CASE WHEN jsonb_typeof("metrics" #> ${p}) = 'number' THEN ("metrics" #>> ${p})::float8 END`;
    });
    return `COALESCE(${cases.join(', ')}) AS "${name}"`;
  });
  const sql = `SELECT "step", ${columns.join(', ')} FROM "Step"
    WHERE "runId" = $1 AND "step" >= $2 ORDER BY "step" LIMIT $3`;
  return { sql, paths };
}

const SERIES_QUERY = seriesQuery();

/**
 * Reads Step and RewardComponentStat rows of a step range into chart-ready columns, in two indexed queries. The
 * metrics are picked out of the JSON by Postgres, so a long run's metrics never travel whole.
 */
export class StepSeriesReader {
  constructor(private readonly prisma: PrismaClient) {}

  async series(runId: string, range: { fromStep: number; limit: number }): Promise<StepSeries> {
    const rows = await this.prisma.$queryRawUnsafe<({ step: number } & Record<StepSeriesName, number | null>)[]>(
      SERIES_QUERY.sql,
      runId,
      range.fromStep,
      range.limit,
      ...SERIES_QUERY.paths,
    );
    const steps = rows.map((r) => r.step);
    const series = Object.fromEntries(
      Object.keys(STEP_SERIES).map((name) => [name, rows.map((row) => row[name as StepSeriesName])]),
    ) as StepSeries['series'];
    const components: StepSeries['components'] = {};
    if (rows.length > 0) {
      const stats = await this.prisma.rewardComponentStat.findMany({
        where: { runId, step: { gte: steps[0], lte: steps[steps.length - 1] } },
        select: { step: true, component: true, mean: true },
      });
      const index = new Map(steps.map((step, i) => [step, i]));
      for (const stat of stats) {
        const i = index.get(stat.step);
        if (i === undefined) continue;
        (components[stat.component] ??= steps.map(() => null))[i] = stat.mean;
      }
    }
    return { runId, steps, series, components };
  }
}
