import { z } from 'zod';

/** Task types of the synthetic long-context QA generator (`libs/tasks`). */
export const TASK_TYPES = ['niah', 'extractive', 'multi_needle', 'counting', 'tracking', 'multi_hop'] as const;
export const TaskTypeSchema = z.enum(TASK_TYPES);
export type TaskType = z.infer<typeof TaskTypeSchema>;

/**
 * What a reader-curriculum example teaches: reading a fact of a task type, `copy` (a copy drill) or `recall` (a recall
 * drill).
 */
export const READER_KINDS = [...TASK_TYPES, 'copy', 'recall'] as const;
export const ReaderKindSchema = z.enum(READER_KINDS);
export type ReaderKind = z.infer<typeof ReaderKindSchema>;

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

/** Phrasing and frame families: train families never appear in heldout-family text, and the reverse. */
export const FAMILIES = ['train', 'heldout'] as const;
export const FamilySchema = z.enum(FAMILIES);
export type Family = z.infer<typeof FamilySchema>;

/**
 * A fact the answer is built from, as a reader would be asked it: `question` is answered from the `evidence`
 * sentences alone (exact substrings of the context). The gold sub-answer of a leaf `llm()` call whose chunk holds
 * all of the evidence, and what an oracle reader answers.
 */
export const SubQuestionSchema = z
  .object({
    question: z.string().min(1),
    evidence: z.array(z.string().min(1)).min(1),
    answer: z.string().min(1),
  })
  .strict();
export type SubQuestion = z.infer<typeof SubQuestionSchema>;

/**
 * The generator's structured ground truth for a task (absent in datasets users bring). Gold answers come from this,
 * never from a regex over the text.
 */
export const TaskMetaSchema = z
  .object({
    /** The entity the question is about, verbatim as it appears in the question and in the document. */
    key: z.string().min(1),
    /** Every entity a solver must look up (multi_needle items, multi_hop's two hops); `[key]` for one-key types. */
    keys: z.array(z.string().min(1)).min(1),
    /** The question template: its family and its id (e.g. "niah.q.h3"). */
    phrasing: z.object({ family: FamilySchema, template: z.string().min(1) }).strict(),
    /** Ids of the needle and distractor frames the document uses (e.g. "niah.needle.t2", "niah.negation.h1"). */
    frames: z.array(z.string().min(1)),
    /** The facts a reader needs, in the order a solver would use them; empty for counting. */
    subquestions: z.array(SubQuestionSchema),
  })
  .strict();
export type TaskMeta = z.infer<typeof TaskMetaSchema>;

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
    /** Structured ground truth of generated tasks; optional so that users' own datasets validate without it. */
    meta: TaskMetaSchema.optional(),
  })
  .strict();
export type Task = z.infer<typeof TaskSchema>;
