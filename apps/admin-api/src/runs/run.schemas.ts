import { TaskTypeSchema, TextIdSchema } from '@fathom/contracts';
import type { RunStatus } from '@fathom/persistence';
import { z } from 'zod';

/** Run statuses (the database enum), for query validation. */
export const RUN_STATUSES = [
  'pending',
  'running',
  'stopping',
  'stopped',
  'completed',
  'failed',
] as const satisfies readonly RunStatus[];

/** Query-string integers: digits only (so "", "1.5", "1e3" and repeated parameters are rejected, not coerced). */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,15}$/, 'expected a non-negative integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** Query-string numbers: a plain decimal, sign and fraction allowed. */
export const queryNumber = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/, 'expected a decimal number')
  .transform(Number);

export const RunListQuerySchema = z.strictObject({
  status: z.enum(RUN_STATUSES).optional().describe('Only runs in this status'),
  limit: queryInt(1, 500).default(100).describe('1-500, default 100'),
});

export const StepsQuerySchema = z.strictObject({
  fromStep: queryInt(0, 1_000_000_000).default(0).describe('First step, default 0'),
  limit: queryInt(1, 5000).default(1000).describe('1-5000, default 1000'),
});

/** GET /runs/:id/series: columns are small (a dozen numbers a step), so one call covers a long run. */
export const SeriesQuerySchema = z.strictObject({
  fromStep: queryInt(0, 1_000_000_000).default(0).describe('First step, default 0'),
  limit: queryInt(1, 100_000).default(100_000).describe('1-100000, default 100000'),
});

/** Episode ids are Postgres BIGINTs; a cursor is the last id of the previous page. */
export const BigIntIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,18}$/, 'expected a positive integer id')
  .transform((s) => BigInt(s))
  .refine((id) => id <= 9_223_372_036_854_775_807n, 'id out of range');

export const EpisodesQuerySchema = z
  .strictObject({
    step: queryInt(0, 1_000_000_000).optional().describe('Only this step'),
    taskType: TaskTypeSchema.optional().describe('Only this task type'),
    minReward: queryNumber.optional().describe('Total reward at least'),
    maxReward: queryNumber.optional().describe('Total reward at most'),
    minContextTokens: queryInt(0, 1_000_000_000).optional().describe('Context length at least (tokens)'),
    maxContextTokens: queryInt(0, 1_000_000_000).optional().describe('Context length at most (tokens)'),
    limit: queryInt(1, 500).default(50).describe('1-500, default 50'),
    cursor: BigIntIdSchema.optional().describe('nextCursor of the previous page'),
  })
  .refine((q) => q.minReward === undefined || q.maxReward === undefined || q.minReward <= q.maxReward, {
    message: 'minReward must not exceed maxReward',
    path: ['minReward'],
  })
  .refine(
    (q) =>
      q.minContextTokens === undefined || q.maxContextTokens === undefined || q.minContextTokens <= q.maxContextTokens,
    { message: 'minContextTokens must not exceed maxContextTokens', path: ['minContextTokens'] },
  );
/** The `:id` of a run route: storable text (a NUL or invalid UTF-8 is a 400 naming `path.id`). */
export const RunIdParamsSchema = z.strictObject({ id: TextIdSchema.describe('Run id') });

/** The `:id` of GET /episodes/:id. */
export const EpisodeIdParamsSchema = z.strictObject({ id: BigIntIdSchema.describe('Episode id (decimal)') });

export type EpisodesQuery = z.output<typeof EpisodesQuerySchema>;
