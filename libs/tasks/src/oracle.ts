import type { Task, TaskType } from '@fathom/contracts';
import { OWNER_OF_QUESTION, QUESTIONS, SUB_QUESTIONS, type Phrasing } from './frames';
import { theList } from './text';

/** What the oracle reader answers when the chunk does not hold the fact asked. */
export const ORACLE_UNKNOWN = 'unknown';

const normalise = (question: string): string =>
  question
    .trim()
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[\s?.!]+$/, '');

/** The phrasings (both families) that ask sub-question `index` of a task of `type`, and the key they take. */
function relationOf(
  type: TaskType,
  index: number,
  keys: readonly string[],
): { phrasings: readonly Phrasing[]; key: string } {
  switch (type) {
    case 'multi_needle':
      return { phrasings: SUB_QUESTIONS.price, key: keys[index] };
    case 'multi_hop':
      return index === 0
        ? { phrasings: SUB_QUESTIONS.owner, key: keys[0] }
        : { phrasings: SUB_QUESTIONS.home, key: keys[1] };
    default:
      return { phrasings: QUESTIONS[type], key: keys[0] };
  }
}

/**
 * The gold leaf reader: answers a sub-call `llm(question, chunk)` about `task` from its structured ground truth,
 * never by reading the text.
 *
 * - A sub-question is asked when `question` is its recorded text or any phrasing of its relation (train or heldout
 *   family) with its key — compared after trimming, lower-casing and dropping the final "?" or "."; a multi_hop's
 *   first hop also when `question` is `OWNER_OF_QUESTION` before the task question (in any phrasing). If all of its
 *   evidence sentences are inside `chunk`, the answer is its answer.
 * - The task question (in any phrasing of its type) is answered with the task's answer when `chunk` holds the
 *   evidence of every sub-question (for tracking and single-fact types that is the one sub-question above).
 * - Anything else — another question, a chunk missing some evidence, a task without `meta`, any counting question
 *   (a count has no evidence sentences) — is answered "unknown".
 *
 * Pure and deterministic; the teacher and the eval's oracle baseline use it as the gold sub-answer.
 */
export function oracleRead(task: Task, question: string, chunk: string): string {
  const { meta } = task;
  if (meta === undefined) return ORACLE_UNKNOWN;
  const asked = normalise(question);
  const holds = (evidence: readonly string[]) => evidence.every((sentence) => chunk.includes(sentence));

  for (const [index, sub] of meta.subquestions.entries()) {
    if (!holds(sub.evidence)) continue;
    const { phrasings, key } = relationOf(task.type, index, meta.keys);
    const askedHere =
      normalise(sub.question) === asked ||
      phrasings.some((p) => normalise(p.render(key)) === asked) ||
      (task.type === 'multi_hop' && index === 0 && asksTask(task, OWNER_OF_QUESTION, asked));
    if (askedHere) return sub.answer;
  }

  if (
    asksTask(task, '', asked) &&
    meta.subquestions.length > 0 &&
    meta.subquestions.every((sub) => holds(sub.evidence))
  )
    return task.answer;
  return ORACLE_UNKNOWN;
}

/** Whether `asked` (normalised) is `prefix` before the task's question, as recorded or in any phrasing of its type. */
function asksTask(task: Task, prefix: string, asked: string): boolean {
  const { meta } = task;
  if (meta === undefined) return false;
  const taskKey = task.type === 'multi_needle' ? theList(meta.keys) : meta.key;
  return [task.question, ...QUESTIONS[task.type].map((p) => p.render(taskKey))].some(
    (q) => normalise(prefix + q) === asked,
  );
}
