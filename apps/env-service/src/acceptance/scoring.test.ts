import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { longDocument, post, startHarness, type Harness } from '../test-support/harness';

/** The reward of an env-service episode counts the client's reported tokens when it reports them on every step. */

// Long enough that the estimated tokens sit well inside the token budget (alpha × context tokens).
const TASK = {
  context: longDocument(20_000, 'Note: the lamp is teal.', 0.5),
  question: 'What colour is the lamp?',
  answer: 'teal',
};
const CODE = 'print(ctx.match(/lamp is (\\w+)/)[1])';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Runs one code step and one answer step, with the given completion_tokens on each (undefined: not reported). */
async function episode(
  tokens: [number | undefined, number | undefined],
): Promise<{ reward: number; correct: boolean }> {
  const reset = await post(h.baseUrl, '/reset', TASK);
  const episode_id = reset.body.observation.episode_id;
  const extra = (n: number | undefined) => (n === undefined ? {} : { completion_tokens: n });
  await post(h.baseUrl, '/step', { episode_id, action: { code: CODE }, ...extra(tokens[0]) });
  const done = await post(h.baseUrl, '/step', { episode_id, action: { answer: 'teal' }, ...extra(tokens[1]) });
  expect(done.body.done).toBe(true);
  return { reward: done.body.reward, correct: done.body.observation.correct };
}

describe('rewards with the client’s token counts (completion_tokens)', () => {
  it('counts reported tokens exactly, and estimates from the actions unless every step reported them', async () => {
    const estimated = await episode([undefined, undefined]);
    const small = await episode([20, 8]);
    const huge = await episode([150_000, 150_000]);
    const partial = await episode([150_000, undefined]);
    for (const e of [estimated, small, huge, partial]) expect(e.correct).toBe(true);
    // Far over the token budget, the reward falls; a partial report is not used at all.
    expect(huge.reward).toBeLessThan(small.reward);
    expect(small.reward).toBeGreaterThan(estimated.reward - 0.05);
    expect(partial.reward).toBe(estimated.reward);
  });

  it('refuses a negative or fractional count with a 422 naming the field', async () => {
    const reset = await post(h.baseUrl, '/reset', TASK);
    const episode_id = reset.body.observation.episode_id;
    for (const completion_tokens of [-1, 2.5]) {
      const bad = await post(h.baseUrl, '/step', { episode_id, action: { code: CODE }, completion_tokens });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(bad.body)).toContain('completion_tokens');
    }
  });
});
