import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { countLlmCallsStatic } from './llm-calls';
import { scoreTrajectory } from './score';
import {
  CITY_TASK,
  COST_TASK,
  MIRROR_TASK,
  SEARCH_TURN,
  trajectory,
  type TrajectoryOptions,
} from './trajectory.fixtures';
import type { RewardTask } from './components/correctness';

/**
 * One test per row of ../REWARD_AUDIT.md; each title starts with the row's id. The last test checks
 * that the table and this file name the same tests.
 */

const score = (text: string, task: RewardTask = MIRROR_TASK, options: TrajectoryOptions = {}) =>
  scoreTrajectory(trajectory(text, options), task);

/** The least a correct answer can score under the default config: untagged, budget spent, 4+ calls. */
const WORST_CORRECT = 0.7;
const WRONG_CAP = 0.25;

describe('reward audit', () => {
  it('A-01 format-only answers earn at most the wrong-answer cap', () => {
    for (const text of [
      '<answer></answer>',
      '<answer>answer</answer>',
      '<answer>...</answer>',
      '<answer><answer></answer>',
    ]) {
      const result = score(text, MIRROR_TASK, { completionTokens: 0 });
      expect(result.components.correctness, text).toBe(0);
      expect(result.total, text).toBeLessThanOrEqual(WRONG_CAP);
      expect(result.total, text).toBeLessThan(WORST_CORRECT);
    }
    expect(score('<answer></answer>').components.format).toBe(0);
  });

  it('A-02 copying the question as the answer is rejected and earns no format bonus', () => {
    for (const text of [
      '<answer>What color is the mirror?</answer>',
      '<answer>what colour... What color is the mirror?</answer>',
      '<answer>What color is the mirror? red</answer>',
    ]) {
      const result = score(text);
      expect(result.components, text).toMatchObject({ correctness: 0, format: 0 });
    }
    expect(score('<answer>What color is the mirror? red</answer>').diagnostics.rejection).toBe('copied_question');
  });

  it('A-03 length gaming: short wrong answers never beat correct ones, padding costs budget', () => {
    const terseWrong = score('<answer>blue</answer>', MIRROR_TASK, { completionTokens: 1 });
    const longCorrect = score('<answer>red</answer>', MIRROR_TASK, { earlier: [SEARCH_TURN], completionTokens: 3000 });
    expect(terseWrong.total).toBeLessThanOrEqual(WRONG_CAP);
    expect(longCorrect.total).toBeGreaterThan(terseWrong.total);
    const concise = score('<answer>red</answer>', MIRROR_TASK, { completionTokens: 200 });
    const padded = score(`${'Let me think. '.repeat(300)}\n<answer>red</answer>`, MIRROR_TASK, {
      completionTokens: 1200,
    });
    expect(padded.total).toBeLessThan(concise.total);
    expect(score('<answer>red</answer>', MIRROR_TASK, { completionTokens: 3200 }).components.token_budget).toBe(0);
  });

  it('A-04 answer stuffing inside one tag never matches', () => {
    for (const text of [
      '<answer>red, blue, green</answer>',
      '<answer>red or crimson</answer>',
      '<answer>red\nblue</answer>',
      '<answer>red red</answer>',
      '<answer>red/blue</answer>',
    ]) {
      expect(score(text).components.correctness, text).toBe(0);
    }
    for (const text of [
      '<answer>1200 or 1300</answer>',
      '<answer>1,200 1,300</answer>',
      '<answer>1200-1300</answer>',
    ]) {
      expect(score(text, COST_TASK).components.correctness, text).toBe(0);
    }
  });

  it('A-05 llm() spam: efficiency decays to 0, is paid only when correct, and spam costs budget', () => {
    const frugal = score('<answer>red</answer>', MIRROR_TASK, { calls: 0 });
    const spam = score('<answer>red</answer>', MIRROR_TASK, { calls: 50 });
    expect(spam.components.recursion_efficiency).toBe(0);
    expect(spam.components.token_budget).toBe(0);
    expect(spam.total).toBeLessThan(frugal.total);
    const wrongSpam = score('<answer>blue</answer>', MIRROR_TASK, { calls: 50 });
    const wrongQuiet = score('<answer>blue</answer>', MIRROR_TASK, { calls: 0 });
    expect(wrongSpam.components.recursion_efficiency).toBe(0);
    expect(wrongSpam.total).toBeLessThanOrEqual(wrongQuiet.total);
  });

  it('A-06 answer stuffing across several tags: only the last counts and the format bonus is lost', () => {
    const firstRight = score('<answer>red</answer>\n<answer>blue</answer>');
    expect(firstRight.components).toMatchObject({ correctness: 0, format: 0 });
    const lastRight = score('<answer>blue</answer>\n<answer>red</answer>');
    expect(lastRight.components).toMatchObject({ correctness: 1, format: 0 });
    expect(lastRight.total).toBeLessThan(score('<answer>red</answer>').total);
  });

  it('A-07 llm( in comments is not counted', () => {
    const code = '// llm(q, c) would be slow\n/* llm(q, ctx) */\nconst i = ctx.indexOf("mirror");';
    expect(countLlmCallsStatic(code).calls).toBe(0);
    const result = score('<answer>red</answer>', MIRROR_TASK, { earlier: ['```js\n' + code + '\n```'], calls: null });
    expect(result.diagnostics.llmCalls).toBe(0);
    expect(countLlmCallsStatic('// llm(a)\nllm(b) /* llm(c)').calls).toBe(1);
  });

  it('A-08 llm( in string literals is not counted', () => {
    expect(
      countLlmCallsStatic('const s = "llm(q)"; const t = \'llm(\'; const u = `llm(${n})`; print(s, t, u);').calls,
    ).toBe(0);
    expect(countLlmCallsStatic('const u = `${llm(q)}`;').calls).toBe(1);
    expect(countLlmCallsStatic('const s = "llm(q)"; llm(r); if (').calls).toBe(1);
  });

  it('A-09 a correct answer outside the tags does not count', () => {
    expect(score('The mirror is red.\n<answer>blue</answer>').components.correctness).toBe(0);
    expect(score('red\n<answer>blue</answer>\nred').components.correctness).toBe(0);
    expect(score('The mirror is red, I think, or maybe blue.').components.correctness).toBe(0);
    const untagged = score('I searched.\nred');
    expect(untagged.components).toMatchObject({ correctness: 1, format: 0 });
    expect(untagged.total).toBeLessThan(score('I searched.\n<answer>red</answer>').total);
  });

  it('A-10 empty answers earn neither correctness nor the format bonus', () => {
    for (const text of [
      '<answer></answer>',
      '<answer>   </answer>',
      '<answer>\u200b\u200b</answer>',
      '<answer>the.</answer>',
      '',
      '\n\n',
    ]) {
      const result = score(text);
      expect(result.components, JSON.stringify(text)).toMatchObject({ correctness: 0, format: 0 });
      expect(result.total).toBeLessThanOrEqual(WRONG_CAP);
    }
  });

  it('A-11 unicode look-alikes fold to the letters they imitate, both ways', () => {
    for (const text of ['Pаris', 'Pαris', 'ＰＡＲＩＳ', '𝐏𝐚𝐫𝐢𝐬', 'Par\u200bis', 'РАRIS']) {
      expect(score(`<answer>${text}</answer>`, CITY_TASK).components.correctness, text).toBe(1);
    }
    expect(score('<answer>Pаris</answer>', { ...CITY_TASK, answer: 'Pаris' }).components.correctness).toBe(1);
    expect(score('<answer>Lоndon</answer>', CITY_TASK).components.correctness).toBe(0);
    expect(score('<аnswer>Paris</аnswer>', CITY_TASK).diagnostics.tagCount).toBe(0);
    expect(score('<answer>１２００</answer>', COST_TASK).components.correctness).toBe(1);
  });

  it('A-12 a huge answer is refused unread and the scorer stays linear', () => {
    const dump = `<answer>${'Paris is the city. '.repeat(60_000)}Paris</answer>`;
    const result = score(dump, CITY_TASK);
    expect(result.components).toMatchObject({ correctness: 0, format: 0 });
    expect(result.diagnostics.rejection).toBe('too_long');
    expect(result.diagnostics.answer?.length).toBe(256);
    const spamCode = '```js\n' + 'await llm(q, c);\n'.repeat(20_000) + '```';
    const huge = score('<answer>Paris</answer>', CITY_TASK, { earlier: [spamCode], calls: null });
    expect(huge.diagnostics).toMatchObject({ llmCalls: 20_000, callCountSource: 'static' });
    expect(huge.components.recursion_efficiency).toBe(0);
  });

  it('the audit table and this file name the same tests', () => {
    const audit = readFileSync(new URL('../REWARD_AUDIT.md', import.meta.url), 'utf8');
    const spec = readFileSync(new URL('./audit.spec.ts', import.meta.url), 'utf8');
    const tableTests = [...audit.matchAll(/^\| (A-\d\d) +\|.*\| `audit\.spec\.ts` › (.+?) *\|$/gm)].map((m) => {
      expect(m[2].startsWith(m[1])).toBe(true);
      return m[2];
    });
    const specTests = [...spec.matchAll(/^ {2}it\('(A-\d\d [^']+)'/gm)].map((m) => m[1]);
    expect(tableTests.length).toBeGreaterThanOrEqual(10);
    expect(tableTests).toEqual(specTests);
  });
});
