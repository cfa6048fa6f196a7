import type { ANSWER_REJECTIONS, Task } from '@fathom/contracts';
import { DEFAULT_REWARD_CONFIG } from '../config';
import { isBlank } from '../extract';
import { normalizeAnswer, numbersEqual, parseNumber } from '../normalize';

/** The parts of a task the reward reads. The reward never sees the task type. */
export type RewardTask = Pick<Task, 'question' | 'answer' | 'aliases' | 'context_tokens'>;

/** Why an answer was rejected before comparison. */
export type AnswerRejection = (typeof ANSWER_REJECTIONS)[number];

export interface AnswerGrade {
  correct: boolean;
  rejection: AnswerRejection | null;
  /** The gold answer or alias that matched. */
  matched: string | null;
  matchKind: 'numeric' | 'text' | null;
}

interface GoldForm {
  raw: string;
  text: string;
  number: number | null;
}

interface NormalizedGold {
  forms: GoldForm[];
  question: string;
}

/** Gold answers are normalised once per task object (tasks are immutable once loaded). */
const goldCache = new WeakMap<RewardTask, NormalizedGold>();

function normalizedGold(task: RewardTask): NormalizedGold {
  let gold = goldCache.get(task);
  if (gold === undefined) {
    const forms = [task.answer, ...task.aliases].map((raw) => ({
      raw,
      text: normalizeAnswer(raw),
      number: parseNumber(raw),
    }));
    gold = { forms, question: normalizeAnswer(task.question) };
    goldCache.set(task, gold);
  }
  return gold;
}

/**
 * Grade an extracted answer against the task's gold answer and aliases.
 *
 * Rejected before comparison: no answer, a blank one, one longer than `maxChars` (not even normalised:
 * a context dump must cost nothing to refuse), and one that contains the question (copying the prompt).
 * A numeric gold answer matches only an answer that reads as exactly one equal number ("1,200" = "1200"
 * = "$1200"); a text gold answer matches the normalised answer exactly (see `normalizeAnswer`).
 */
export function gradeAnswer(answer: string | null, task: RewardTask, maxChars: number): AnswerGrade {
  const rejected = (rejection: AnswerRejection): AnswerGrade => ({
    correct: false,
    rejection,
    matched: null,
    matchKind: null,
  });
  if (answer === null) return rejected('no_answer');
  if (answer.length > maxChars) return rejected('too_long');
  const text = normalizeAnswer(answer);
  if (text === '' || isBlank(answer)) return rejected('empty');
  const gold = normalizedGold(task);
  if (gold.question !== '' && text.includes(gold.question)) return rejected('copied_question');
  let number: number | null | undefined;
  for (const form of gold.forms) {
    if (form.number !== null) {
      number ??= parseNumber(answer);
      if (number !== null && numbersEqual(number, form.number)) {
        return { correct: true, rejection: null, matched: form.raw, matchKind: 'numeric' };
      }
    } else if (form.text !== '' && form.text === text) {
      return { correct: true, rejection: null, matched: form.raw, matchKind: 'text' };
    }
  }
  return { correct: false, rejection: null, matched: null, matchKind: null };
}

/**
 * Is `answer` (already extracted, tags removed) correct for `task`? The same rule the reward pays for,
 * including its rejections; `maxChars` defaults to the reward config's default.
 */
export function isCorrect(answer: string, task: RewardTask, maxChars?: number): boolean {
  return gradeAnswer(answer, task, maxChars ?? DEFAULT_REWARD_CONFIG.answer.maxChars).correct;
}
