import type { Task } from '@fathom/contracts';
import { generateTasks } from '@fathom/tasks';
import { describe, expect, it } from 'vitest';
import { EnvError } from '../errors';
import { DocCache, documentSha256 } from '@fathom/sandbox';
import { TaskStore } from './task.store';

const tasks: Task[] = [
  ...generateTasks({ split: 'train', n: 6, seed: 1, minTokens: 4096, maxTokens: 4096 }),
  ...generateTasks({ split: 'eval', n: 2, seed: 1, minTokens: 4096, maxTokens: 4096 }),
];
const store = new TaskStore(tasks);

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as EnvError).code;
  }
  return null;
};

describe('TaskStore', () => {
  it('selects by id, checking the split when one is given', () => {
    expect(store.select({ task_id: tasks[7].id }).id).toBe(tasks[7].id);
    expect(store.select({ task_id: tasks[7].id, split: 'eval' }).id).toBe(tasks[7].id);
    expect(codeOf(() => store.select({ task_id: tasks[7].id, split: 'train' }))).toBe('TASK_NOT_FOUND');
    expect(codeOf(() => store.select({ task_id: 'nope' }))).toBe('TASK_NOT_FOUND');
  });

  it('samples deterministically by seed within a split, defaulting to train', () => {
    const picks = [0, 1, 2, 3, 4, 5, 6, 7].map((seed) => store.select({ seed }).id);
    expect(picks).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((seed) => store.select({ seed, split: 'train' }).id));
    expect(new Set(picks).size).toBeGreaterThan(1);
    expect(picks.every((id) => id.startsWith('train-'))).toBe(true);
    expect(store.select({ seed: 3, split: 'eval' }).split).toBe('eval');
    expect(codeOf(() => store.select({ split: 'heldout' }))).toBe('TASK_NOT_FOUND');
  });

  it('builds an inline task with the shared token estimate', () => {
    const task = store.select({ context: 'x'.repeat(4001), question: 'q?', answer: 'a', aliases: ['b'] });
    expect(task).toMatchObject({ id: 'inline', split: 'inline', context_tokens: 1001, aliases: ['b'] });
  });

  it('keeps an inline document only under its own SHA-256, and names it by that hash afterwards', () => {
    const outcomes: string[] = [];
    const keeping = new TaskStore([], new DocCache(Infinity, 1024), (outcome) => outcomes.push(outcome));
    const text = 'The van is crimson.';
    expect(codeOf(() => keeping.select({ context: text, context_sha256: documentSha256('another text') }))).toBe(
      'VALIDATION_ERROR',
    );
    expect(codeOf(() => keeping.select({ context_sha256: documentSha256('another text') }))).toBe('TASK_NOT_FOUND');
    expect(keeping.select({ context: text, context_sha256: documentSha256(text) }).contextSha256).toBe(
      documentSha256(text),
    );
    expect(keeping.select({ context_sha256: documentSha256(text) }).context).toBe(text);
    expect(outcomes).toEqual(['miss', 'stored', 'hit']);
  });

  it('without a dataset, only inline tasks exist and the error says so', () => {
    const empty = new TaskStore([]);
    expect(() => empty.select({ seed: 1 })).toThrow(/no dataset configured/);
  });
});
