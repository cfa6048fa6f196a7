import { QUEUE_NAMES, TextIdSchema } from '@fathom/contracts';
import { z } from 'zod';
import { queryInt } from '../runs/run.schemas';

/** The `:name` of GET /queues/:name/failed: storable text; an unknown queue is a 404 naming the queues. */
export const QueueNameParamsSchema = z.strictObject({ name: TextIdSchema.describe(QUEUE_NAMES.join(', ')) });

export const FailedQuerySchema = z.strictObject({ limit: queryInt(1, 500).default(20).describe('1-500, default 20') });
