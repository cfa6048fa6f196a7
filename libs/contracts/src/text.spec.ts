import { describe, expect, it } from 'vitest';
import { isInvalidTextIssue, storableText, TEXT_LIMITS, TextIdSchema, TextNameSchema, textProblem } from './text';

describe('storable text', () => {
  it('accepts any well-formed Unicode without NUL, astral characters included', () => {
    for (const value of ['run-1', '✓', '日本語', '🚀 emoji', 'tab\tand\nnewline', '\uFFFD', '\u{10FFFF}']) {
      expect(textProblem(value)).toBeNull();
      expect(TextIdSchema.safeParse(value).success).toBe(true);
    }
  });

  it('refuses NUL and lone surrogates with an issue marked invalid text', () => {
    for (const value of ['\u0000', 'a\u0000b', '\uD800', 'x\uDFFFy', '\uDC00\uD800']) {
      const issues = TextIdSchema.safeParse(value).error?.issues ?? [];
      expect(issues).toHaveLength(1);
      expect(isInvalidTextIssue(issues[0]!)).toBe(true);
      expect(issues[0]!.message).toMatch(/NUL|surrogate/);
    }
  });

  it('applies length limits as ordinary (not invalid-text) issues, and trims names', () => {
    const long = TextIdSchema.safeParse('a'.repeat(TEXT_LIMITS.id + 1)).error?.issues ?? [];
    expect(long.map((i) => [i.code, isInvalidTextIssue(i)])).toEqual([['too_big', false]]);
    expect(TextIdSchema.safeParse('').success).toBe(false);
    expect(storableText(10, 0).safeParse('').success).toBe(true);
    expect(TextNameSchema.parse('  run  ')).toBe('run');
    expect(TextNameSchema.safeParse('   ').success).toBe(false);
  });
});
