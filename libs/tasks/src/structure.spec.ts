import { describe, expect, it } from 'vitest';
import type { Task, TaskType } from '@fathom/contracts';
import { generateTasks } from './generator';
import { structuralIssues } from './structure';
import { estimateTokens } from './tokens';

const one = (type: TaskType, family: 'train' | 'heldout' = 'train'): Task =>
  [...generateTasks({ split: 'heldout', n: 8, seed: 17, minTokens: 512, maxTokens: 1024, mix: { [type]: 1 } })].find(
    (t) => t.meta!.phrasing.family === family,
  )!;

describe('structuralIssues', () => {
  it('accepts generated tasks of both families and ignores tasks without meta', () => {
    for (const type of ['niah', 'multi_needle', 'tracking', 'multi_hop', 'counting'] as const)
      for (const family of ['train', 'heldout'] as const) expect(structuralIssues(one(type, family))).toEqual([]);
    expect(structuralIssues({ ...one('niah'), meta: undefined, answer: 'anything' })).toEqual([]);
  });

  it('catches a multi_needle total that is not the sum of its items', () => {
    const t = one('multi_needle');
    expect(structuralIssues({ ...t, answer: String(Number(t.answer) + 1) })).toEqual([
      expect.stringContaining('is not the sum of the prices'),
    ]);
  });

  it('catches a sub-answer that its evidence does not write, as a price without its thousands separator', () => {
    const t = one('multi_needle');
    const [first, ...rest] = t.meta!.subquestions;
    const meta = { ...t.meta!, subquestions: [{ ...first, answer: `${first.answer}.0` }, ...rest] };
    expect(structuralIssues({ ...t, meta })).toEqual([expect.stringContaining('is not written in its evidence')]);
  });

  it('catches a multi_hop chain whose second hop is not about the first answer', () => {
    const t = one('multi_hop');
    const meta = { ...t.meta!, keys: [t.meta!.key, 'Someone Else'] };
    expect(structuralIssues({ ...t, meta })).toEqual([expect.stringContaining('second hop')]);
  });

  it('catches a wrong count and a question that is not its template', () => {
    const t = one('counting');
    expect(structuralIssues({ ...t, answer: '99' })).toEqual([expect.stringContaining('occurs')]);
    expect(structuralIssues({ ...t, question: `${t.question} Please.` })).toEqual([
      expect.stringContaining('is not template'),
    ]);
  });

  it('catches frames of another family and sentences whose frame meta does not list', () => {
    const t = one('tracking');
    const frames = t.meta!.frames.map((id) => id.replace(/\.t(\d)$/, '.h$1'));
    const issues = structuralIssues({ ...t, meta: { ...t.meta!, frames } });
    expect(issues.some((i) => i.includes('is not a train tracking frame'))).toBe(true);
    expect(issues.some((i) => i.includes('which meta.frames does not list'))).toBe(true);
  });

  it('accepts invented wording only where meta lists it, and still catches a key inside a longer word', () => {
    const [task] = generateTasks({
      split: 'train',
      n: 1,
      seed: 3,
      minTokens: 512,
      maxTokens: 1024,
      mix: { niah: 1 },
      inventedShare: 1,
    });
    expect(task.meta!.frames).toContain('niah.needle.invented');
    expect(structuralIssues(task)).toEqual([]);

    const written = task.meta!.frames.filter((id) => !id.endsWith('.invented'));
    expect(structuralIssues({ ...task, meta: { ...task.meta!, frames: written } })).toEqual([
      expect.stringContaining('is no niah frame'),
    ]);
    const unknown = [...task.meta!.frames, 'niah.near_miss.invented'];
    expect(structuralIssues({ ...task, meta: { ...task.meta!, frames: unknown } })).toEqual([
      'unknown frame "niah.near_miss.invented"',
    ]);
    const key = task.meta!.key;
    const hidden = `${task.context} The lamp sat by the ${key}ist all day.`;
    expect(structuralIssues({ ...task, context: hidden, context_tokens: estimateTokens(hidden) })).toEqual([
      expect.stringContaining(`names "${key.toLowerCase()}" inside a longer word`),
    ]);
  });
});
