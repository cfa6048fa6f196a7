import { describe, expect, it } from 'vitest';
import { resolveRewardConfig } from './config';
import { RewardError } from './errors';
import { scoreGroup } from './group';
import { registeredRewardComponents, registerRewardComponent } from './registry';
import { scoreTrajectory } from './score';
import { MIRROR_TASK, trajectory } from './trajectory.fixtures';

/** 1 for an episode of one turn, 0.5 for two, 1/n for n: answering without searching first. */
registerRewardComponent({
  name: 'few_turns',
  requiresCorrectAnswer: false,
  score: (facts) => 1 / facts.trajectory.turns.length,
});
/** A gated component: always 1 before its gate. */
registerRewardComponent({ name: 'always_one_if_correct', requiresCorrectAnswer: true, score: () => 1 });
/** A broken component: its value is out of range. */
registerRewardComponent({ name: 'out_of_range', requiresCorrectAnswer: false, score: () => 1.5 });

function thrown(action: () => unknown): RewardError {
  try {
    action();
  } catch (error) {
    if (error instanceof RewardError) return error;
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('reward component registry', () => {
  it('holds the built-in components first, then the registered ones', () => {
    expect(registeredRewardComponents()).toEqual([
      'format',
      'correctness',
      'token_budget',
      'recursion_efficiency',
      'few_turns',
      'always_one_if_correct',
      'out_of_range',
    ]);
  });

  it('composes a registered component the config names, with its weight, and reports it', () => {
    const config = { weights: { correctness: 0.6, few_turns: 0.4 } };
    const result = scoreTrajectory(trajectory('<answer>red</answer>', { earlier: ['searching'] }), MIRROR_TASK, config);
    expect(result.components).toEqual({ correctness: 1, few_turns: 0.5, format: 1 });
    expect(result.total).toBeCloseTo(0.6 + 0.4 * 0.5 + 0.1, 12);
    const group = scoreGroup([trajectory('<answer>red</answer>'), trajectory('<answer>blue</answer>')], MIRROR_TASK, {
      weights: { correctness: 0.6, few_turns: 0.4 },
    });
    expect(Object.keys(group.perComponent)).toEqual(['correctness', 'few_turns', 'format']);
    expect(group.perComponent.few_turns).toEqual({ mean: 1, std: 0 });
  });

  it('applies a gated component only to a correct answer', () => {
    const config = { weights: { correctness: 0.5, always_one_if_correct: 0.5 } };
    expect(scoreTrajectory(trajectory('<answer>red</answer>'), MIRROR_TASK, config).components).toMatchObject({
      always_one_if_correct: 1,
    });
    expect(scoreTrajectory(trajectory('<answer>blue</answer>'), MIRROR_TASK, config).components).toMatchObject({
      always_one_if_correct: 0,
    });
  });

  it('refuses a value outside [0, 1], naming the component', () => {
    const config = { weights: { correctness: 0.5, out_of_range: 0.5 } };
    const error = thrown(() => scoreTrajectory(trajectory('<answer>red</answer>'), MIRROR_TASK, config));
    expect(error.code).toBe('INVALID_COMPONENT');
    expect(error.message).toBe('invalid reward component "out_of_range" scored 1.5, outside [0, 1]');
  });

  it('rejects a config naming an unregistered component, naming the registered ones', () => {
    const error = thrown(() => resolveRewardConfig({ weights: { correctness: 0.5, brevity: 0.5 } }));
    expect(error.code).toBe('INVALID_CONFIG');
    expect(error.message).toMatch(/unknown reward component "brevity" \(registered: format, correctness, /);
  });

  it('rejects format in weights: formatBonus weighs it', () => {
    expect(thrown(() => resolveRewardConfig({ weights: { correctness: 0.9, format: 0.1 } })).message).toMatch(
      /format is weighted by formatBonus/,
    );
  });

  it('refuses a taken or malformed name', () => {
    const taken = thrown(() =>
      registerRewardComponent({ name: 'correctness', requiresCorrectAnswer: false, score: () => 0 }),
    );
    expect(taken.code).toBe('INVALID_COMPONENT');
    expect(taken.message).toMatch(/invalid reward component "correctness": the name is already registered/);
    expect(
      thrown(() => registerRewardComponent({ name: 'Token Budget', requiresCorrectAnswer: false, score: () => 0 }))
        .message,
    ).toMatch(/snake_case/);
  });
});
