import { RewardResultSchema } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { RewardError } from './errors';
import { scoreTrajectory } from './score';
import { MIRROR_TASK, SEARCH_TURN, trajectory } from './trajectory.fixtures';

const score = (text: string, options: Parameters<typeof trajectory>[1] = {}) =>
  scoreTrajectory(trajectory(text, options), MIRROR_TASK).total;

describe('scoreTrajectory composition', () => {
  it('sums weighted components plus the format bonus', () => {
    const result = scoreTrajectory(
      trajectory('<answer>red</answer>', { calls: 1, completionTokens: 160 }),
      MIRROR_TASK,
    );
    // spent = 160 + 440 = 600 of a 3200-token budget → token_budget 0.8125; 1 call → efficiency 0.75.
    expect(result.components).toEqual({ format: 1, correctness: 1, token_budget: 0.8125, recursion_efficiency: 0.75 });
    expect(result.total).toBeCloseTo(0.7 + 0.15 * 0.8125 + 0.15 * 0.75 + 0.1, 12);
    expect(result.diagnostics).toMatchObject({ llmCalls: 1, callCountSource: 'executed', tokensSpent: 600 });
    expect(RewardResultSchema.parse(result)).toEqual(result);
  });

  it('reports every component for every outcome', () => {
    for (const text of ['<answer>red</answer>', '<answer>blue</answer>', 'red', '', '<answer></answer>']) {
      const result = scoreTrajectory(trajectory(text), MIRROR_TASK);
      expect(Object.keys(result.components).sort()).toEqual([
        'correctness',
        'format',
        'recursion_efficiency',
        'token_budget',
      ]);
      expect(RewardResultSchema.safeParse(result).success).toBe(true);
    }
  });

  it("takes the environment's reward as the total with source env, the task's components beside it", () => {
    const wrong = { ...trajectory('<answer>blue</answer>'), envReward: -0.5 };
    const fromEnv = scoreTrajectory(wrong, MIRROR_TASK, { source: 'env' });
    expect(fromEnv.total).toBe(-0.5);
    expect(fromEnv.components).toEqual(scoreTrajectory(wrong, MIRROR_TASK).components);
    expect(RewardResultSchema.parse(fromEnv)).toEqual(fromEnv);
    expect(scoreTrajectory(trajectory('<answer>red</answer>'), MIRROR_TASK, { source: 'env' }).total).toBe(0);
    expect(scoreTrajectory(wrong, MIRROR_TASK).total).toBeGreaterThanOrEqual(0);
  });

  it('reaches 1 + formatBonus for a perfect episode', () => {
    expect(scoreTrajectory(trajectory('<answer>red</answer>', { completionTokens: 0 }), MIRROR_TASK).total).toBe(1.1);
  });

  it('pays recursion efficiency only for a correct answer', () => {
    const wrong = scoreTrajectory(trajectory('<answer>blue</answer>', { calls: 0 }), MIRROR_TASK);
    expect(wrong.components.recursion_efficiency).toBe(0);
    expect(wrong.diagnostics.recursionEfficiencyRaw).toBe(1);
  });

  it('caps a wrong answer at wrongAnswerCap whatever the weights', () => {
    const config = { weights: { correctness: 0.2, token_budget: 0.8, recursion_efficiency: 0 } };
    const result = scoreTrajectory(trajectory('<answer>blue</answer>', { completionTokens: 0 }), MIRROR_TASK, config);
    expect(result.diagnostics.uncappedTotal).toBeCloseTo(0.9, 12);
    expect(result.total).toBe(0.25);
    expect(result.diagnostics.capped).toBe(true);
  });

  it('reads the answer from the final turn only', () => {
    const earlier = ['<answer>red</answer>'];
    expect(scoreTrajectory(trajectory('still searching', { earlier }), MIRROR_TASK).components.correctness).toBe(0);
    expect(
      scoreTrajectory(trajectory('<answer>red</answer>', { earlier: [SEARCH_TURN] }), MIRROR_TASK).components
        .correctness,
    ).toBe(1);
  });

  it('reads a REPL answer() of the final code turn, ignoring tags in its code', () => {
    const code = '```js\nconst s = "<answer>blue</answer>";\nanswer(ctx.match(/mirror is (\\w+)/)[1])\n```';
    const right = scoreTrajectory({ ...trajectory(code, { completionTokens: 0 }), replAnswer: ' red ' }, MIRROR_TASK);
    expect(right.components).toMatchObject({ format: 1, correctness: 1 });
    expect(right.diagnostics).toMatchObject({ answer: 'red', answerSource: 'repl', tagCount: 0 });
    expect(right.total).toBe(1.1);
    const wrong = scoreTrajectory({ ...trajectory(code), replAnswer: 'blue' }, MIRROR_TASK);
    expect(wrong.components).toMatchObject({ format: 1, correctness: 0 });
    const blank = scoreTrajectory({ ...trajectory(code), replAnswer: '  ' }, MIRROR_TASK);
    expect(blank.components).toMatchObject({ format: 0, correctness: 0 });
    expect(blank.diagnostics.rejection).toBe('empty');
  });

  it('counts calls statically from every turn when there is no execution record', () => {
    const code = '```js\n// llm(skip)\nconst a = await llm("color?", ctx.slice(0, 5000));\nprint(a);\n```';
    const result = scoreTrajectory(
      trajectory('<answer>red</answer>', { earlier: [code, code], calls: null }),
      MIRROR_TASK,
    );
    expect(result.diagnostics).toMatchObject({ llmCalls: 2, callCountSource: 'static', unparsedCodeBlocks: 0 });
    expect(result.components.recursion_efficiency).toBe(0.5);
  });

  it('prefers the execution record over the code', () => {
    const code = '```js\nfor (const c of chunks) await llm("q", c);\n```';
    const result = scoreTrajectory(trajectory('<answer>red</answer>', { earlier: [code], calls: 6 }), MIRROR_TASK);
    expect(result.diagnostics).toMatchObject({ llmCalls: 6, callCountSource: 'executed' });
  });

  it("grades nothing untagged with answer.untagged = 'none'", () => {
    const result = scoreTrajectory(trajectory('red'), MIRROR_TASK, { answer: { untagged: 'none' } });
    expect(result.components.correctness).toBe(0);
    expect(result.diagnostics).toMatchObject({ answerSource: 'none', rejection: 'no_answer' });
  });

  it('scores an episode with no turns as no answer', () => {
    const result = scoreTrajectory({ turns: [], llmCalls: [], tokens: { completion: 0, subcall: 0 } }, MIRROR_TASK);
    expect(result.components).toMatchObject({ format: 0, correctness: 0 });
    expect(result.diagnostics.rejection).toBe('no_answer');
  });

  it('throws INVALID_TRAJECTORY for a malformed trajectory', () => {
    const bad = { turns: [{ completion: 'x' }], llmCalls: [], tokens: { completion: -1, subcall: 0 } };
    expect(() => scoreTrajectory(bad, MIRROR_TASK)).toThrow(RewardError);
    try {
      scoreTrajectory({ ...bad, tokens: { completion: 1.5, subcall: 0 } }, MIRROR_TASK);
    } catch (e) {
      expect((e as RewardError).code).toBe('INVALID_TRAJECTORY');
      expect((e as RewardError).message).toMatch(/tokens\.completion/);
    }
  });
});

describe('orderings', () => {
  const correct0 = score('<answer>red</answer>', { earlier: [SEARCH_TURN], calls: 0 });
  const correct1 = score('<answer>red</answer>', { earlier: [SEARCH_TURN], calls: 1 });
  const correct5 = score('<answer>red</answer>', { earlier: [SEARCH_TURN], calls: 5 });
  const wrongs = [
    score('<answer>blue</answer>', { completionTokens: 0 }),
    score('<answer>blue</answer>', { calls: 0 }),
    score('<answer>blue</answer>', { calls: 8 }),
    score('<answer>red or blue</answer>'),
    score('<answer>red</answer><answer>blue</answer>'),
    score('blue'),
    score(''),
    score('<answer></answer>'),
    score('<answer>What color is the mirror?</answer>'),
  ];

  it('correct with 0 calls > 1 call > 5 calls > any wrong answer', () => {
    expect(correct0).toBeGreaterThan(correct1);
    expect(correct1).toBeGreaterThan(correct5);
    expect(correct5).toBeGreaterThan(Math.max(...wrongs));
  });

  it('the worst correct answer (untagged, 5 calls, budget spent) still beats the best wrong one', () => {
    const worstCorrect = score('red', { calls: 5, completionTokens: 10_000 });
    expect(worstCorrect).toBeGreaterThan(Math.max(...wrongs));
  });

  it('correct but untagged < correct and tagged', () => {
    expect(score('red')).toBeLessThan(score('<answer>red</answer>'));
    expect(score('The mirror is\nred', { calls: 2 })).toBeLessThan(score('<answer>red</answer>', { calls: 2 }));
  });
});
