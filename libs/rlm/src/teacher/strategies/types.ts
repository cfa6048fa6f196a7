import type { TaskType } from '@fathom/contracts';
import type { QuestionOf } from '../question';

/** What the teacher writes next: a code cell to run. The cell that calls `answer(value)` ends the episode. */
export type TeacherMove = { code: string };

/**
 * One way of solving a task type, written as the policy would: it sees the question and the observations of
 * its own earlier turns — never the task's context or gold answer — so a naive strategy is wrong exactly when
 * the distractors of `libs/tasks` fool its search or its reading. Its code never spells the question's key: it
 * takes it from the REPL's `question` global at run time, so the code of a strategy is the same text on every
 * task (a tiny policy cannot copy an arbitrary key from the prompt into a regex; docs/RESULTS.md).
 */
export interface TeacherStrategy<T extends TaskType = TaskType> {
  /** "<type>.<name>", unique; the key of the mix. */
  readonly name: string;
  readonly type: T;
  /** True when it is right on every generated task (measured by teacher.test.ts). */
  readonly robust: boolean;
  /** True when its code calls llm(). */
  readonly usesLlm: boolean;
  /** One line on what it does and what fools it (docs/TEACHER.md, the CLI summary). */
  readonly summary: string;
  /**
   * The next cell, given the question and the observations so far (one per code cell already run, none of which
   * answered), or null when it has no cell left — a strategy whose last cell did not answer is a bug.
   */
  next(question: QuestionOf<T>, observations: readonly string[]): TeacherMove | null;
}

export type AnyTeacherStrategy = { [T in TaskType]: TeacherStrategy<T> }[TaskType];

/**
 * The cells of a strategy, played in order: the `observations.length`-th of `cells`, or null past the last one.
 * Every strategy's last cell calls `answer(value)`, so the final value is computed and answered by code, never
 * copied from an observation into an `<answer>` tag — a copy the tiny byte-level policy could not make
 * (docs/RESULTS.md). The shapes used: one cell that answers; look, then compute (a cell that prints what the
 * search finds, then one that answers); and look, refine, answer (a first cell that answers when its search found
 * something and prints `unknown` otherwise — `if (m) answer(m[1]); else print('unknown')` — then a fallback cell
 * that answers).
 */
export function playCells(cells: readonly string[], observations: readonly string[]): TeacherMove | null {
  const source = cells[observations.length];
  return source === undefined ? null : { code: source };
}
