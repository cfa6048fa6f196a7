import { z } from 'zod';

/** Task types of the synthetic long-context QA generator (`libs/tasks`). */
export const TASK_TYPES = ['niah', 'extractive', 'multi_needle', 'counting'] as const;
export const TaskTypeSchema = z.enum(TASK_TYPES);
export type TaskType = z.infer<typeof TaskTypeSchema>;

export const SPLITS = ['train', 'eval', 'heldout'] as const;
export const SplitSchema = z.enum(SPLITS);
export type Split = z.infer<typeof SplitSchema>;

/** Where a needle (a sentence the answer depends on) sits in the context. */
export const NeedlePositionSchema = z
  .object({
    /** Character offset of the needle sentence in `context`. */
    start: z.number().int().nonnegative(),
    /** Character offset one past its end. */
    end: z.number().int().nonnegative(),
    /** Relative depth in the document, start / context.length rounded to 4 decimals, in [0, 1]. */
    depth: z.number().min(0).max(1),
  })
  .strict()
  .refine((p) => p.end > p.start, { message: 'needle end must be after its start' });
export type NeedlePosition = z.infer<typeof NeedlePositionSchema>;

/**
 * One line of a FATHOM dataset file (JSONL). Documented in docs/DATASETS.md.
 * Users may bring their own files in this schema; `fathom data validate` checks them.
 */
export const TaskSchema = z
  .object({
    id: z.string().min(1),
    split: SplitSchema,
    type: TaskTypeSchema,
    question: z.string().min(1),
    context: z.string().min(1),
    /** The gold answer, canonical form. */
    answer: z.string().min(1),
    /** Other accepted spellings of the gold answer. */
    aliases: z.array(z.string().min(1)),
    /** Size of `context` by the shared token estimator (`estimateTokens` in `@fathom/tasks`). */
    context_tokens: z.number().int().positive(),
    needle_positions: z.array(NeedlePositionSchema),
    /** Distractor variants present in this task (see docs/DATASETS.md), e.g. "near_miss". */
    variants: z.array(z.string().min(1)),
  })
  .strict();
export type Task = z.infer<typeof TaskSchema>;
