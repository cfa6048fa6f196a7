import { ByteTokenizer } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { generateReaderExamples } from '@fathom/tasks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedTestPolicy } from '../episode/scripted-policy.test-double';
import { charSimilarity, evaluateReader } from './reader';

let pool: SandboxPool;
beforeAll(async () => {
  pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1 });
});
afterAll(() => pool.close());

describe('evaluateReader', () => {
  it('serves each example as a leaf read of the policy and grades it against the gold, by type, family and gold kind', async () => {
    const examples = [...generateReaderExamples({ split: 'heldout', n: 40, seed: 3 })];
    // The script knows the gold of every third example and answers "unknown" otherwise.
    const known = new Map(examples.filter((_, i) => i % 3 === 0).map((e) => [e.chunk, e.answer]));
    const prompts: string[] = [];
    const policy = new ScriptedTestPolicy(new ByteTokenizer(), ({ prompt }) => {
      prompts.push(prompt);
      for (const [chunk, answer] of known) if (prompt.includes(`Text:\n${chunk}<|im_end|>`)) return answer;
      return 'unknown';
    });
    const report = await evaluateReader(policy, examples, { sandbox: pool });

    const expected = examples.filter((e, i) => i % 3 === 0 || e.answer === 'unknown').length;
    expect(prompts).toHaveLength(40);
    expect(prompts[0]).toContain(`${examples[0].question}\n\nText:\n`);
    expect(report.overall).toEqual({ n: 40, correct: expected, accuracy: expected / 40 });
    const unknown = examples.filter((e) => e.answer === 'unknown').length;
    expect(report.byGold.unknown).toMatchObject({ n: unknown, correct: unknown });
    expect(Object.values(report.byType).reduce((n, s) => n + s.n, 0)).toBe(40);
    expect(Object.keys(report.byFamily).sort()).toEqual(['heldout', 'train']);
    // Each example counts once under every distractor kind its chunk holds ("none" for none); the script's
    // "unknown" is never a distractor's words.
    const right = examples.filter((e, i) => i % 3 === 0 || e.answer === 'unknown');
    const kindsOf = (e: (typeof examples)[number]) => e.distractors.map((d) => d.kind);
    const kinds = new Set(examples.flatMap((e) => (e.distractors.length === 0 ? ['none'] : kindsOf(e))));
    expect(new Set(Object.keys(report.byDistractor))).toEqual(kinds);
    for (const kind of kinds) {
      const holds = (e: (typeof examples)[number]) =>
        kind === 'none' ? e.distractors.length === 0 : kindsOf(e).includes(kind);
      const n = examples.filter(holds).length;
      const correct = right.filter(holds).length;
      expect(report.byDistractor[kind], kind).toEqual({ n, correct, accuracy: correct / n, fromDistractor: 0 });
    }
    expect(report.mistakes.length).toBe(Math.min(20, 40 - expected));
    expect(report.mistakes[0].answer).toBe('unknown');
    // Stated golds read right copy fully; those read "unknown" share little with the gold.
    const stated = examples.filter((e) => e.answer !== 'unknown');
    const copied = stated.filter((e) => known.has(e.chunk));
    const expectedSimilarity =
      stated.reduce((sum, e) => sum + (known.has(e.chunk) ? 1 : charSimilarity('unknown', e.answer)), 0) /
      stated.length;
    expect(report.copy.charSimilarity).toBeCloseTo(expectedSimilarity, 10);
    expect(report.copy.firstCharMatch).toBeGreaterThanOrEqual(copied.length / stated.length);
  });

  it("counts a wrong read taken from a distractor's sentence under that distractor's kind", async () => {
    const examples = [...generateReaderExamples({ split: 'heldout', n: 30, seed: 5, keyShare: 1 })].filter(
      (e) => e.distractors.length > 0 && e.answer !== 'unknown',
    );
    // The script answers with the whole first distractor sentence: always wrong, always from that sentence.
    const first = new Map(examples.map((e) => [e.chunk, e.chunk.slice(e.distractors[0].start, e.distractors[0].end)]));
    const policy = new ScriptedTestPolicy(new ByteTokenizer(), ({ prompt }) => {
      for (const [chunk, sentence] of first) if (prompt.includes(`Text:\n${chunk}<|im_end|>`)) return sentence;
      return 'unknown';
    });
    const report = await evaluateReader(policy, examples, { sandbox: pool });
    expect(report.overall.correct).toBe(0);
    for (const [kind, stats] of Object.entries(report.byDistractor)) {
      const firstOfKind = examples.filter((e) => e.distractors[0].kind === kind).length;
      expect(stats.fromDistractor, kind).toBeGreaterThanOrEqual(firstOfKind);
      expect(stats.fromDistractor, kind).toBeLessThanOrEqual(stats.n);
    }
    const firstKind = examples[0].distractors[0].kind;
    expect(report.byDistractor[firstKind].fromDistractor).toBeGreaterThan(0);
  });

  it('charSimilarity is 1 − Levenshtein distance over the longer length', () => {
    expect(charSimilarity('X8-ZS3', 'X8-ZS3')).toBe(1);
    expect(charSimilarity('X3-ZS3', 'X8-ZS3')).toBeCloseTo(5 / 6);
    expect(charSimilarity('Bandtha', 'Bantha')).toBeCloseTo(6 / 7);
    expect(charSimilarity('', '')).toBe(1);
    expect(charSimilarity('abc', '')).toBe(0);
  });
});
