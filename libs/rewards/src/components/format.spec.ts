import { describe, expect, it } from 'vitest';
import { extractAnswer } from '../extract';
import { CITY_TASK } from '../trajectory.fixtures';
import { gradeAnswer } from './correctness';
import { formatScore } from './format';

function format(text: string): number {
  const extracted = extractAnswer(text);
  return formatScore(extracted, gradeAnswer(extracted.answer, CITY_TASK, 256));
}

describe('formatScore', () => {
  it('is 1 for exactly one non-empty tag, right or wrong', () => {
    expect(format('<answer>Paris</answer>')).toBe(1);
    expect(format('reasoning…\n<answer>Lyon</answer>')).toBe(1);
  });

  it('is 0 without a tag, with several tags, or with a non-answer in the tag', () => {
    expect(format('Paris')).toBe(0);
    expect(format('<answer>Paris')).toBe(0);
    expect(format('<answer>Paris</answer><answer>Paris</answer>')).toBe(0);
    expect(format('<answer> </answer>')).toBe(0);
    expect(format('<answer>?!</answer>')).toBe(0);
    expect(format(`<answer>${'x'.repeat(300)}</answer>`)).toBe(0);
    expect(format('<answer>In which city was the 2000 agreement signed?</answer>')).toBe(0);
  });
});
