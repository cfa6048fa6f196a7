import { describe, expect, it } from 'vitest';
import type { Task } from '@fathom/contracts';
import { datasetStats } from './stats';

function task(overrides: Partial<Task>): Task {
  return {
    id: 't',
    split: 'train',
    type: 'niah',
    question: 'What colour is the mirror?',
    context: 'The mirror is red.',
    answer: 'red',
    aliases: [],
    context_tokens: 5,
    needle_positions: [{ start: 0, end: 18, depth: 0 }],
    variants: [],
    ...overrides,
  };
}

describe('datasetStats', () => {
  it('counts types, summarises tokens with nearest-rank percentiles, and rates variants per type', () => {
    const tasks = [
      ...Array.from({ length: 10 }, (_, i) =>
        task({ context_tokens: (i + 1) * 100, variants: i < 3 ? ['near_miss'] : [], answer: i < 5 ? 'red' : 'blue' }),
      ),
      task({ type: 'counting', answer: '4', context_tokens: 50, variants: ['case_trap'] }),
      task({ type: 'counting', answer: '8', context_tokens: 60 }),
    ];
    const stats = datasetStats(tasks);
    expect(stats.tasks).toBe(12);
    expect(stats.byType).toEqual({ niah: 10, extractive: 0, multi_needle: 0, counting: 2, tracking: 0, multi_hop: 0 });
    expect(stats.contextTokens).toMatchObject({ min: 50, median: 400, p90: 900, max: 1000 });
    expect(stats.byFamily).toEqual({ none: 12 });
    expect(stats.variantRates.niah).toEqual({ near_miss: 0.3 });
    expect(stats.variantRates.counting).toEqual({ case_trap: 0.5 });
    expect(stats.answers.niah).toEqual({ distinct: 2, topShare: 0.5 });
    expect(stats.answers.counting.numeric).toMatchObject({ min: 4, max: 8, mean: 6 });
  });

  it('handles an empty dataset', () => {
    const stats = datasetStats([]);
    expect(stats.tasks).toBe(0);
    expect(stats.contextTokens).toBeUndefined();
  });
});
