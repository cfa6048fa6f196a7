import type { RewardConfigInput, RewardTrajectory } from '@fathom/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RewardTask } from './components/correctness';
import { resolveRewardConfig } from './config';
import { extractAnswer } from './extract';
import { scoreGroup } from './group';
import { countLlmCallsStatic } from './llm-calls';
import { normalizeAnswer, parseNumber } from './normalize';
import { scoreTrajectory } from './score';

/** Pieces that steer random text towards the parser's edge cases. */
const FRAGMENTS = [
  '<answer>',
  '</answer>',
  '```js\n',
  '```\n',
  '\n',
  'llm(',
  ')',
  '"',
  '`${',
  '}',
  '//',
  '/*',
  'red',
  'Red.',
  'crimson',
  '1,200',
  '1200',
  'What color is the mirror?',
  'the ',
  '\u200b',
  'а',
  '𝐑',
  ' ',
];

const text = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 8 })), { maxLength: 40 })
    .map((parts) => parts.join('')),
);

const trajectoryArb: fc.Arbitrary<RewardTrajectory> = fc.record({
  turns: fc.array(fc.record({ completion: text }), { maxLength: 4 }),
  llmCalls: fc.option(
    fc.array(
      fc.record({
        depth: fc.integer({ min: 1, max: 4 }),
        promptTokens: fc.nat({ max: 10_000 }),
        completionTokens: fc.nat({ max: 10_000 }),
      }),
      { maxLength: 12 },
    ),
  ),
  tokens: fc.record({ completion: fc.nat({ max: 100_000 }), subcall: fc.nat({ max: 100_000 }) }),
});

const taskArb: fc.Arbitrary<RewardTask> = fc.record({
  question: fc.oneof(fc.constant('What color is the mirror?'), fc.string({ minLength: 1, maxLength: 60 })),
  answer: fc.oneof(fc.constantFrom('red', '1200', 'Paris', 'the end'), fc.string({ minLength: 1, maxLength: 20 })),
  aliases: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 2 }),
  context_tokens: fc.integer({ min: 1, max: 200_000 }),
});

/** Random valid configs: weights on a 1/100 grid so they sum to 1. */
const configArb: fc.Arbitrary<RewardConfigInput> = fc
  .record({
    a: fc.integer({ min: 0, max: 100 }),
    b: fc.integer({ min: 0, max: 100 }),
    formatBonus: fc.double({ min: 0, max: 1, noNaN: true }),
    wrongAnswerCap: fc.double({ min: 0, max: 1, noNaN: true }),
    alpha: fc.double({ min: 0.001, max: 5, noNaN: true }),
    variant: fc.constantFrom('capped_linear' as const, 'exponential' as const),
    zeroAtCalls: fc.integer({ min: 1, max: 20 }),
    untagged: fc.constantFrom('last_line' as const, 'none' as const),
  })
  .filter(({ a, b }) => a + b <= 100)
  .map(({ a, b, formatBonus, wrongAnswerCap, alpha, variant, zeroAtCalls, untagged }) => ({
    weights: { correctness: a / 100, token_budget: b / 100, recursion_efficiency: (100 - a - b) / 100 },
    formatBonus,
    wrongAnswerCap,
    tokenBudget: { alpha, variant },
    recursion: { zeroAtCalls },
    answer: { untagged },
  }));

describe('reward properties', () => {
  it('with the default config, total is in [0, 1.1] and scoring never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(trajectoryArb, taskArb, (trajectory, task) => {
        const { total } = scoreTrajectory(trajectory, task);
        expect(total).toBeGreaterThanOrEqual(0);
        expect(total).toBeLessThanOrEqual(1.1);
      }),
      { numRuns: 400 },
    );
  });

  it('caps are never exceeded and components stay in [0, 1], for any valid config', () => {
    fc.assert(
      fc.property(trajectoryArb, taskArb, configArb, (trajectory, task, config) => {
        const cfg = resolveRewardConfig(config);
        const { total, components, diagnostics } = scoreTrajectory(trajectory, task, config);
        for (const value of Object.values(components)) {
          expect(value).toBeGreaterThanOrEqual(0);
          expect(value).toBeLessThanOrEqual(1);
        }
        expect(total).toBeGreaterThanOrEqual(0);
        expect(total).toBeLessThanOrEqual(1 + cfg.formatBonus);
        if (components.correctness === 0) {
          expect(total).toBeLessThanOrEqual(cfg.wrongAnswerCap);
          expect(components.recursion_efficiency).toBe(0);
        }
        expect(total).toBeCloseTo(
          Math.min(diagnostics.uncappedTotal, components.correctness ? 1 + cfg.formatBonus : cfg.wrongAnswerCap),
          12,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('a correct answer always outscores a wrong one under the default config', () => {
    const task: RewardTask = {
      question: 'What color is the mirror?',
      answer: 'red',
      aliases: [],
      context_tokens: 16_000,
    };
    fc.assert(
      fc.property(trajectoryArb, trajectoryArb, (a, b) => {
        const ra = scoreTrajectory(a, task);
        const rb = scoreTrajectory(b, task);
        if (ra.components.correctness > rb.components.correctness) expect(ra.total).toBeGreaterThan(rb.total);
      }),
      { numRuns: 300 },
    );
  });

  it('group statistics are finite and zeroStd matches identical totals', () => {
    fc.assert(
      fc.property(fc.array(trajectoryArb, { minLength: 1, maxLength: 8 }), taskArb, (trajectories, task) => {
        const group = scoreGroup(trajectories, task);
        expect(Number.isFinite(group.totals.std)).toBe(true);
        expect(group.zeroStd).toBe(group.rewards.every((r) => Math.abs(r - group.rewards[0]) < 1e-12));
      }),
      { numRuns: 150 },
    );
  });

  it('the text helpers never throw on arbitrary strings', () => {
    fc.assert(
      fc.property(text, (s) => {
        const extracted = extractAnswer(s);
        expect(extracted.tagCount).toBeGreaterThanOrEqual(0);
        expect(countLlmCallsStatic(s).calls).toBeGreaterThanOrEqual(0);
        const number = parseNumber(s);
        expect(number === null || Number.isFinite(number)).toBe(true);
        expect(normalizeAnswer(normalizeAnswer(s))).toBe(normalizeAnswer(s));
      }),
      { numRuns: 500 },
    );
  });
});
