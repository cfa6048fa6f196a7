import { TaskTypeSchema } from '@fathom/contracts';
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
  status: z.enum(RUN_STATUSES).optional(),
  limit: queryInt(1, 500).default(100),
});

export const StepsQuerySchema = z.strictObject({
  fromStep: queryInt(0, 1_000_000_000).default(0),
  limit: queryInt(1, 5000).default(1000),
});

/** GET /runs/:id/series: columns are small (a dozen numbers a step), so one call covers a long run. */
export const SeriesQuerySchema = z.strictObject({
  fromStep: queryInt(0, 1_000_000_000).default(0),
  limit: queryInt(1, 100_000).default(100_000),
});

/** Episode ids are Postgres BIGINTs; a cursor is the last id of the previous page. */
export const BigIntIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,18}$/, 'expected a positive integer id')
  .transform((s) => BigInt(s))
  .refine((id) => id <= 9_223_372_036_854_775_807n, 'id out of range');

export const EpisodesQuerySchema = z
  .strictObject({
    step: queryInt(0, 1_000_000_000).optional(),
    taskType: TaskTypeSchema.optional(),
    minReward: queryNumber.optional(),
    maxReward: queryNumber.optional(),
    minContextTokens: queryInt(0, 1_000_000_000).optional(),
    maxContextTokens: queryInt(0, 1_000_000_000).optional(),
    limit: queryInt(1, 500).default(50),
    cursor: BigIntIdSchema.optional(),
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
export type EpisodesQuery = z.output<typeof EpisodesQuerySchema>;
