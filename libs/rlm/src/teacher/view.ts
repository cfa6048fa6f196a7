import type { Task } from '@fathom/contracts';
import type { TeacherView } from './strategies';

/**
 * The teacher's view of a generated task (null for a task without the generator's `meta`): the question, the keys
 * it names verbatim, and the reader sub-questions with each earlier sub-answer replaced by `{i}` — the hop-2
 * question "Where does Mira Tallow live?" becomes "Where does {0} live?", which code fills from the first read.
 */
export function teacherView(task: Task): TeacherView | null {
  const meta = task.meta;
  if (meta === undefined) return null;
  const subquestions = meta.subquestions.map((sq, i) => {
    let text = sq.question;
    for (let j = 0; j < i; j++) text = text.split(meta.subquestions[j].answer).join(`{${j}}`);
    return text;
  });
  return { type: task.type, question: task.question, key: meta.key, keys: meta.keys, subquestions };
}
