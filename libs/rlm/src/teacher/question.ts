import type { TaskType } from '@fathom/contracts';

/**
 * What the teacher reads from a question: the key it names, in the generator's question forms
 * (docs/DATASETS.md). The teacher sees only what the policy sees — the question text, never the gold answer.
 */
export type TaskQuestion =
  | { type: 'niah'; text: string; object: string }
  /** `key` is "1987 Harbour Accord"; `name` drops the year ("Harbour Accord"). */
  | { type: 'extractive'; text: string; key: string; name: string }
  | { type: 'multi_needle'; text: string; items: string[] }
  | { type: 'counting'; text: string; word: string };

export type QuestionOf<T extends TaskType> = Extract<TaskQuestion, { type: T }>;

/**
 * Keys are pasted into regex literals and string literals of the teacher's code, so only plain words, digits,
 * spaces and hyphens are accepted (every generated key is).
 */
const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9 -]*$/;

const NIAH = /^What colou?r is the (.+)\?$/;
const EXTRACTIVE = /^In which city was the (\d+) (.+) signed\?$/;
const MULTI_NEEDLE = /^What is the total price, in dollars, of (.+)\?$/;
const COUNTING = /^How many times does the word "(.+)" appear in the document\?/;

/** Items of "the lamp, the drill and the globe". */
export function splitItems(list: string): string[] {
  return list.split(/, | and /).map((part) => part.replace(/^the /, ''));
}

/** The question's form and key, or null when it is not one of the generator's forms (or names an unsafe key). */
export function parseTaskQuestion(question: string): TaskQuestion | null {
  const text = question.trim();
  const safe = (...keys: string[]): boolean => keys.every((k) => SAFE_KEY.test(k));
  let m = NIAH.exec(text);
  if (m) return safe(m[1]) ? { type: 'niah', text, object: m[1] } : null;
  m = EXTRACTIVE.exec(text);
  if (m) return safe(m[2]) ? { type: 'extractive', text, key: `${m[1]} ${m[2]}`, name: m[2] } : null;
  m = MULTI_NEEDLE.exec(text);
  if (m) {
    const items = splitItems(m[1]);
    return safe(...items) ? { type: 'multi_needle', text, items } : null;
  }
  m = COUNTING.exec(text);
  if (m) return safe(m[1]) ? { type: 'counting', text, word: m[1] } : null;
  return null;
}
