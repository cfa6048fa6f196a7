import { z } from 'zod';
import { FamilySchema, ReaderKindSchema, TaskTypeSchema } from './task';

/**
 * One SFT example written by the teacher (`libs/rlm/src/teacher`, `fathom sft-data`): one line of an SFT
 * JSONL file. The task's question and context are not repeated: join on `task_id` with the tasks file and
 * render with `renderSftExample` (the one prompt renderer). Documented in docs/TEACHER.md.
 */

/** One model turn and, for a code turn, what the REPL printed in reply. */
export const SftTurnSchema = z.strictObject({
  /**
   * The model's text for the turn, exactly as trained on: a ```js block (the final one calls `answer()`), or
   * `<answer>…</answer>`.
   */
  completion: z.string().min(1),
  /** The observation text the turn's code produced; absent on the final (answering) turn. */
  observation: z.string().optional(),
});
export type SftTurn = z.infer<typeof SftTurnSchema>;

/** One `llm(question, chunk)` call of the example's code, with the teacher's answer (a sub-call SFT example). */
export const SftSubcallSchema = z.strictObject({
  question: z.string(),
  chunk: z.string().optional(),
  answer: z.string().min(1),
});
export type SftSubcall = z.infer<typeof SftSubcallSchema>;

export const SftExampleSchema = z
  .strictObject({
    task_id: z.string().min(1),
    type: TaskTypeSchema,
    /** The teacher strategy that wrote it, e.g. "niah.first_mention". */
    strategy: z.string().min(1),
    /** Whether that strategy is one of the robust ones. */
    robust: z.boolean(),
    turns: z.array(SftTurnSchema).min(1),
    /** The final answer: the value the final cell passed to `answer()` (or the last turn's `<answer>` tag). */
    answer: z.string().min(1),
    /** The answer graded against the gold answer by `@fathom/rewards` `isCorrect`; for reporting, never for choosing. */
    correct: z.boolean(),
    subcalls: z.array(SftSubcallSchema),
    /**
     * Present on a repair example: the bug its first cell was played with ("typo", "paren", "array_text"); that turn's
     * observation is the sandbox's error, and the corrected cells follow.
     */
    repair: z.enum(['typo', 'paren', 'array_text']).optional(),
  })
  .superRefine((example, ctx) => {
    const last = example.turns.length - 1;
    example.turns.forEach((turn, i) => {
      if ((turn.observation === undefined) !== (i === last))
        ctx.addIssue({
          code: 'custom',
          path: ['turns', i, 'observation'],
          message: i === last ? 'the final turn has no observation' : 'every turn but the last has an observation',
        });
    });
  });
export type SftExample = z.infer<typeof SftExampleSchema>;

/**
 * One leaf reading example of the reader curriculum (`fathom sft-data --readers`): a sub-call `question` about a
 * `chunk` of at most the reader window, and the gold `answer` ("unknown" when the chunk lacks the evidence). Trained
 * on as `renderSftSubcall` — exactly the prompt a rollout's leaf `llm()` call is sampled from. `type` and `family`
 * (the phrasing and frame family, train or heldout) are for reporting; `type` `copy` marks a copy drill (the answer is
the whole chunk). Documented in docs/TEACHER.md.
 */
export const SftReaderExampleSchema = SftSubcallSchema.extend({
  chunk: z.string(),
  type: ReaderKindSchema,
  family: FamilySchema,
  /**
   * The task's other sentences in the chunk, in chunk order: each one's frame kind ("negation", "reported", …, or
   * "other_entity" for a sentence written with an evidence frame about another entity: a near-duplicate, a bystander,
   * another item) and its character span `[start, end)` in `chunk`. For reporting; absent in files written before
   * it existed.
   */
  distractors: z
    .array(z.strictObject({ kind: z.string().min(1), start: z.number().int().min(0), end: z.number().int().min(0) }))
    .optional(),
});
export type SftReaderExample = z.infer<typeof SftReaderExampleSchema>;
