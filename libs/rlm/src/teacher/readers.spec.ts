import { TASK_TYPES } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { renderSubcallPrompt, segmentsText } from '../prompt';
import { DEFAULT_READER_WINDOW_CHARS, planSubcall } from '../subcall';
import { renderSftSubcall } from './build';
import { buildReaderExamples, readerCurriculumStats } from './readers';

describe('the reader curriculum', () => {
  it('writes leaf examples of every reading type and both families, with some "unknown" chunks', () => {
    const examples = [...buildReaderExamples({ split: 'heldout', n: 3000, seed: 4 })];
    const stats = readerCurriculumStats(examples);
    expect(stats.examples).toBe(3000);
    expect(stats.maxChunkChars).toBeLessThanOrEqual(DEFAULT_READER_WINDOW_CHARS);
    expect(Object.keys(stats.byType).sort()).toEqual(TASK_TYPES.filter((t) => t !== 'counting').sort());
    expect(Object.keys(stats.byFamily).sort()).toEqual(['heldout', 'train']);
    expect(stats.unknown / stats.examples).toBeGreaterThan(0.05);
    expect(stats.unknown / stats.examples).toBeLessThan(0.2);
    expect(new Set(examples.map((e) => e.answer)).size).toBeGreaterThan(1000);
    for (const e of examples) expect(planSubcall(e.chunk.length, DEFAULT_READER_WINDOW_CHARS)).toBe('leaf');
  });

  it('trains on exactly the prompt a rollout samples a leaf llm() call from', () => {
    const [e] = buildReaderExamples({ split: 'train', n: 1, seed: 0 });
    const segments = renderSftSubcall(e);
    expect(segmentsText(segments.filter((s) => !s.trained).slice(0, -1))).toBe(
      segmentsText(renderSubcallPrompt(e.question, e.chunk)),
    );
    expect(segments.filter((s) => s.trained).map((s) => s.text)).toEqual([`${e.answer}<|im_end|>`]);
  });

  it('is deterministic in (split, n, seed) and refuses a window the chunks would not fit', () => {
    const a = [...buildReaderExamples({ split: 'train', n: 50, seed: 9 })];
    expect([...buildReaderExamples({ split: 'train', n: 50, seed: 9 })]).toEqual(a);
    expect([...buildReaderExamples({ split: 'train', n: 50, seed: 10 })]).not.toEqual(a);
    expect(() => [...buildReaderExamples({ split: 'train', n: 1, seed: 0, readerWindowChars: 100 })]).toThrow();
  });
});
