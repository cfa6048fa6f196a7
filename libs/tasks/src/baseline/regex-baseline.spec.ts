import { describe, expect, it } from 'vitest';
import { TASK_TYPES, type Task } from '@fathom/contracts';
import { generateTasks } from '../generator';
import { REGEX_BASELINE, runRegexBaseline } from './regex-baseline';

const EVEN_MIX = Object.fromEntries(TASK_TYPES.map((t) => [t, 1]));
const tasks = [
  ...generateTasks({ split: 'heldout', n: 600, seed: 13, minTokens: 1024, maxTokens: 4096, mix: EVEN_MIX }),
];
const right = (t: Task) => {
  const answer = runRegexBaseline(t).toLowerCase();
  return [t.answer, ...t.aliases].some((a) => a.toLowerCase() === answer);
};
const accuracy = (ts: Task[]) => ts.filter(right).length / ts.length;

describe('regex baseline', () => {
  it('is plain JavaScript source over (question, ctx), one program per type', () => {
    for (const type of TASK_TYPES) {
      expect(() => new Function('question', 'ctx', REGEX_BASELINE[type])).not.toThrow();
      expect(REGEX_BASELINE[type]).not.toMatch(/\bmeta\b|\banswer\b/);
    }
  });

  it('solves tasks in the train families it was written against', () => {
    for (const type of TASK_TYPES) {
      const seen = tasks.filter((t) => t.type === type && t.meta!.phrasing.family === 'train');
      expect(accuracy(seen), type).toBeGreaterThan(0.95);
    }
  });

  it('does worse on unseen phrasings and frames, except counting, which a whole-word count solves', () => {
    const unseen = (type: string) => tasks.filter((t) => t.type === type && t.meta!.phrasing.family === 'heldout');
    for (const type of ['niah', 'extractive', 'multi_needle', 'multi_hop', 'tracking'])
      expect(accuracy(unseen(type)), type).toBeLessThan(0.8);
    expect(accuracy(unseen('counting'))).toBe(1);
  });

  it('answers "" rather than throwing when it finds nothing', () => {
    const niah = tasks.find((t) => t.type === 'niah')!;
    expect(runRegexBaseline({ ...niah, question: 'Nothing to see?', context: 'Quiet.' })).toBe('');
  });
});
