import { describe, expect, it } from 'vitest';
import { COST_TASK, CITY_TASK, MIRROR_TASK } from '../trajectory.fixtures';
import { gradeAnswer, isCorrect } from './correctness';

describe('gradeAnswer / isCorrect', () => {
  it('matches the gold answer and its aliases after normalisation', () => {
    for (const answer of ['red', 'Red', ' RED. ', 'the red', 'crimson', 'Crimson!']) {
      expect(isCorrect(answer, MIRROR_TASK), answer).toBe(true);
    }
    expect(gradeAnswer('Crimson', MIRROR_TASK, 256)).toEqual({
      correct: true,
      rejection: null,
      matched: 'crimson',
      matchKind: 'text',
    });
  });

  it('rejects near misses', () => {
    for (const answer of ['blue', 'reddish', 'red blue', 'dark red', 're d']) {
      expect(isCorrect(answer, MIRROR_TASK), answer).toBe(false);
    }
  });

  it('compares numeric gold answers as numbers', () => {
    for (const answer of ['1200', '1,200', '1 200', '$1,200', '1200.00', '1200.']) {
      expect(gradeAnswer(answer, COST_TASK, 256), answer).toMatchObject({ correct: true, matchKind: 'numeric' });
    }
    for (const answer of ['1201', '120', '1,20', '12,00', '1200 or 1300', '1200 dollars', 'twelve hundred']) {
      expect(isCorrect(answer, COST_TASK), answer).toBe(false);
    }
  });

  it('reports why an answer was rejected', () => {
    expect(gradeAnswer(null, CITY_TASK, 256).rejection).toBe('no_answer');
    expect(gradeAnswer(' . ', CITY_TASK, 256).rejection).toBe('empty');
    expect(gradeAnswer('Paris'.padEnd(300, ' '), CITY_TASK, 256).rejection).toBe('too_long');
    expect(gradeAnswer('In which city was the 2000 agreement signed? Paris', CITY_TASK, 256).rejection).toBe(
      'copied_question',
    );
    expect(gradeAnswer('Lyon', CITY_TASK, 256).rejection).toBeNull();
  });

  it('reuses the normalised gold across calls without going stale for a different task', () => {
    expect(isCorrect('Paris', CITY_TASK)).toBe(true);
    expect(isCorrect('Paris', { ...CITY_TASK, answer: 'Lyon' })).toBe(false);
  });
});
