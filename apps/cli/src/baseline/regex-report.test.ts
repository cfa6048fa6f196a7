import { describe, expect, it } from 'vitest';
import { TASK_TYPES } from '@fathom/contracts';
import { generateTasks } from '@fathom/tasks';
import { RegexBaselineAccumulator, formatRegexBaseline } from './regex-report';

describe('regex baseline report', () => {
  it('grades with the reward and splits accuracy by type and seen/unseen phrasing family', () => {
    const acc = new RegexBaselineAccumulator();
    const mix = Object.fromEntries(TASK_TYPES.map((t) => [t, 1]));
    for (const task of generateTasks({ split: 'heldout', n: 60, seed: 4, minTokens: 512, maxTokens: 2048, mix }))
      acc.add(task);
    const report = acc.result();
    expect(report.tasks).toBe(60);
    expect(Object.keys(report.byFamily)).toEqual(['seen', 'unseen']);
    expect(report.byFamily.seen.n + report.byFamily.unseen.n).toBe(60);
    expect(report.byFamily.seen.accuracy).toBe(1);
    expect(report.byFamily.unseen.accuracy).toBeLessThan(1);
    expect(Object.keys(report.byType).sort()).toEqual([...TASK_TYPES].sort());
    expect(report.overall.correct).toBe(Object.values(report.byType).reduce((sum, a) => sum + a.correct, 0));
    expect(formatRegexBaseline('t', report)).toMatch(/unseen +\d+\.\d%/);
  });
});
