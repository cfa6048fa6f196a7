import { DEFAULT_MODEL_CHECKPOINT, EntityIdSchema, SeedSchema, TextIdSchema, TextPathSchema } from '@fathom/contracts';
import { z } from 'zod';

/** POST /evals: evaluate a checkpoint on the eval or held-out split. */
export const EvalRequestSchema = z.strictObject({
  /** A checkpoint folder, or "default" for the shipped model. */
  checkpoint: TextPathSchema.default(DEFAULT_MODEL_CHECKPOINT),
  split: z.enum(['eval', 'heldout']).default('eval'),
  /** The run the checkpoint came from; must exist when given. */
  runId: EntityIdSchema.optional(),
  /** Evaluate only the first n tasks of the split. */
  limit: z.number().int().positive().max(1_000_000).optional(),
  seed: SeedSchema.default(0),
});
export type EvalRequest = z.output<typeof EvalRequestSchema>;

/** GET /evals/:id: the evalId the results were written under. */
export const EvalIdParamsSchema = z.strictObject({ id: TextIdSchema.describe('evalId (as POST /evals returned it)') });
