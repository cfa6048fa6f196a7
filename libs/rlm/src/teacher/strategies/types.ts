import type { TaskType } from '@fathom/contracts';
import type { CodeStyle } from '../code';

/** What the teacher writes next: a code cell to run. The cell that calls `answer(value)` ends the episode. */
export type TeacherMove = { code: string };

/**
 * What a strategy may know about a task: exactly what a policy reads in its prompt, made explicit. `key` and `keys`
 * are entities spelled verbatim in the question (the generator's `meta.key` / `meta.keys`), so code that writes them
 * as string literals copies them from the prompt. `subquestions` are the reader questions a solver would ask, in
 * order, with `{0}`, `{1}`, … standing for the answers of earlier ones (an entity the policy only learns at run time,
 * e.g. the lamp's owner), so the code builds them from REPL variables. Never the context, never an answer.
 */
export interface TeacherView {
  type: TaskType;
  question: string;
  key: string;
  keys: readonly string[];
  subquestions: readonly string[];
}

/**
 * One way of solving a task type, written as the policy would: it sees the task view and the observations of its
 * own earlier turns — never the context or the gold answer — so a naive strategy is wrong exactly when the
 * distractors of `libs/tasks` fool its search or its reading. `style` is the code phrasing drawn for this task
 * (variable names, search helper, loop shape), so one strategy writes many program texts.
 */
export interface TeacherStrategy {
  /** "<type>.<name>", unique; the key of the mix. */
  readonly name: string;
  readonly type: TaskType;
  /** True when it is right on every generated task with the oracle reader (measured by teacher.test.ts). */
  readonly robust: boolean;
  /** True when its code calls llm(). */
  readonly usesLlm: boolean;
  /** One line on what it does and what fools it (docs/TEACHER.md, the CLI summary). */
  readonly summary: string;
  /**
   * The next cell, given the view, the style and the observations so far (one per code cell already run, none of
   * which answered), or null when it has no cell left — a strategy whose last cell did not answer is a bug.
   */
  next(view: TeacherView, style: CodeStyle, observations: readonly string[]): TeacherMove | null;
}

/** The cells of a strategy, played in order: the `observations.length`-th of `cells`, or null past the last one. */
export function playCells(cells: readonly string[], observations: readonly string[]): TeacherMove | null {
  const source = cells[observations.length];
  return source === undefined ? null : { code: source };
}
