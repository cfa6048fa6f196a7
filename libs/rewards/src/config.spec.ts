import { RewardConfigSchema } from '@fathom/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DEFAULT_REWARD_CONFIG, resolveRewardConfig } from './config';
import { RewardError } from './errors';

describe('reward config', () => {
  it('defaults to reward v3', () => {
    expect(DEFAULT_REWARD_CONFIG).toEqual({
      source: 'task',
      weights: { correctness: 0.7, token_budget: 0.15, recursion_efficiency: 0.15 },
      formatBonus: 0.1,
      wrongAnswerCap: 0.25,
      tokenBudget: { alpha: 0.2, variant: 'capped_linear' },
      recursion: { zeroAtCalls: 4 },
      answer: { maxChars: 256, untagged: 'last_line' },
    });
  });

  it('fills defaults around a partial config', () => {
    const config = resolveRewardConfig({ tokenBudget: { variant: 'exponential' } });
    expect(config.tokenBudget).toEqual({ alpha: 0.2, variant: 'exponential' });
    expect(config.weights.correctness).toBe(0.7);
  });

  it('rejects weights that do not sum to 1, naming them', () => {
    let error: unknown;
    try {
      resolveRewardConfig({ weights: { correctness: 0.8, token_budget: 0.15, recursion_efficiency: 0.15 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RewardError);
    expect((error as RewardError).code).toBe('INVALID_CONFIG');
    expect((error as RewardError).message).toMatch(
      /weights must sum to 1, got correctness 0\.8 \+ token_budget 0\.15 \+ recursion_efficiency 0\.15 = 1\.1/,
    );
  });

  it('rejects unknown keys and out-of-range values', () => {
    expect(() => resolveRewardConfig({ bonus: 1 } as never)).toThrow(/bonus/);
    expect(() => resolveRewardConfig({ wrongAnswerCap: 2 })).toThrow(RewardError);
    expect(() => resolveRewardConfig({ tokenBudget: { alpha: 0 } })).toThrow(/alpha/);
    expect(() => resolveRewardConfig({ recursion: { zeroAtCalls: 0 } })).toThrow(/zeroAtCalls/);
  });

  it('embeds in a run config and round-trips through JSON', () => {
    const RunConfig = z.strictObject({ name: z.string(), reward: RewardConfigSchema.prefault({}) });
    const run = RunConfig.parse({ name: 'r1', reward: { formatBonus: 0.05 } });
    expect(run.reward.formatBonus).toBe(0.05);
    expect(RunConfig.parse(JSON.parse(JSON.stringify(run)))).toEqual(run);
    expect(RunConfig.parse({ name: 'r2' }).reward).toEqual(DEFAULT_REWARD_CONFIG);
  });

  it('exports as JSON Schema for documentation and other languages', () => {
    const schema = z.toJSONSchema(RewardConfigSchema, { io: 'input' }) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['weights', 'formatBonus', 'wrongAnswerCap', 'tokenBudget', 'recursion', 'answer']),
    );
  });
});
