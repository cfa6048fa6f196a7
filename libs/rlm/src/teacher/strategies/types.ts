import type { TaskType } from '@fathom/contracts';
import type { QuestionOf } from '../question';
import { printedValue } from '../reader';

/** What the teacher writes next: a code cell to run, or the final answer. */
export type TeacherMove = { kind: 'code'; code: string } | { kind: 'answer'; answer: string };

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
  /** The next turn, given the question and the observations so far (one per code turn already taken). */
  next(question: QuestionOf<T>, observations: readonly string[]): TeacherMove;
}

export type AnyTeacherStrategy = { [T in TaskType]: TeacherStrategy<T> }[TaskType];

export const code = (source: string): TeacherMove => ({ kind: 'code', code: source });

/** What a policy answers when its search came back empty. */
export const GIVE_UP = 'unknown';

export const answer = (value: string | null): TeacherMove => ({ kind: 'answer', answer: value ?? GIVE_UP });

/**
 * Answers with the value the last code turn printed. Every strategy's last cell prints exactly its answer (or
 * `unknown`) on one line, so the answer turn only copies the observation just above it — the one copy a tiny
 * byte-level policy can make reliably.
 */
export function answerPrinted(observations: readonly string[]): TeacherMove {
  return answer(printedValue(observations[observations.length - 1]));
}

/** One cell that prints the answer, then the answer. */
export function computeThenAnswer(source: string, observations: readonly string[]): TeacherMove {
  return observations.length === 0 ? code(source) : answerPrinted(observations);
}

/** Look, then compute: a cell that prints what the search finds, a cell that prints the answer, the answer. */
export function lookThenCompute(look: string, compute: string, observations: readonly string[]): TeacherMove {
  if (observations.length === 0) return code(look);
  return observations.length === 1 ? code(compute) : answerPrinted(observations);
}

/**
 * Look, refine, answer: run `first`; if it printed a value, answer it; otherwise run `fallback` and answer
 * whatever that printed.
 */
export function lookThenRefine(first: string, fallback: string, observations: readonly string[]): TeacherMove {
  if (observations.length === 0) return code(first);
  const found = printedValue(observations[0]);
  if (found !== null) return answer(found);
  return observations.length === 1 ? code(fallback) : answer(printedValue(observations[1]));
}
