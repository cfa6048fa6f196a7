import type { ExtractedAnswer } from '../extract';
import type { AnswerGrade } from './correctness';

/** Rejections that void the format bonus even inside a single tag: the tag holds no real answer. */
const NOT_AN_ANSWER = new Set<AnswerGrade['rejection']>(['empty', 'too_long', 'copied_question']);

/**
 * Format: 1 when the final turn holds exactly one `<answer>…</answer>` with a real answer in it (not blank,
 * not over the length limit, not the question copied), else 0. Added as a bonus, never multiplied in.
 */
export function formatScore(extracted: ExtractedAnswer, grade: AnswerGrade): number {
  return extracted.wellFormed && !NOT_AN_ANSWER.has(grade.rejection) ? 1 : 0;
}
