import { describe, expect, it } from 'vitest';
import { findAnswer, findCodeBlocks, parseCompletion } from './parse';

const fence = '```';

describe('findCodeBlocks', () => {
  it('finds js, javascript, repl and bare fences with their language', () => {
    const text = [
      `${fence}js`,
      'a()',
      fence,
      'prose',
      `${fence}JavaScript`,
      'b()',
      fence,
      `${fence}repl`,
      'c()',
      fence,
      fence,
      'd()',
      fence,
    ].join('\n');
    expect(findCodeBlocks(text).map((b) => [b.lang, b.code])).toEqual([
      ['js', 'a()'],
      ['javascript', 'b()'],
      ['repl', 'c()'],
      ['', 'd()'],
    ]);
  });

  it('keeps multi-line bodies and inner shorter fences of longer fences', () => {
    const text = ['````js', 'const s = `', '```', '`;', 'print(s)', '````'].join('\n');
    expect(findCodeBlocks(text)).toEqual([
      { lang: 'js', code: 'const s = `\n```\n`;\nprint(s)', start: 0, end: text.length, closed: true },
    ]);
  });

  it('runs an unclosed final fence to the end of the text', () => {
    expect(findCodeBlocks(`Let me search.\n${fence}js\nprint(ctx.length)\n`)).toEqual([
      expect.objectContaining({ code: 'print(ctx.length)\n', closed: false }),
    ]);
  });

  it('accepts CRLF line endings and indented fences', () => {
    expect(findCodeBlocks(`  ${fence}js\r\nx()\r\n  ${fence}\r\n`).map((b) => b.closed)).toEqual([true]);
  });

  it('ignores inline triple backticks in prose', () => {
    expect(findCodeBlocks('write ```js``` blocks')).toEqual([]);
  });
});

describe('findAnswer', () => {
  it('extracts and trims the first answer, case-insensitively', () => {
    expect(findAnswer('I think <answer> teal </answer> and <answer>red</answer>')).toBe('teal');
    expect(findAnswer('<ANSWER>42</Answer>')).toBe('42');
  });

  it('runs an unclosed answer to the end of the text', () => {
    expect(findAnswer('done: <answer>Paris')).toBe('Paris');
  });

  it('ignores answer tags inside code blocks', () => {
    expect(findAnswer(`${fence}js\nprint("<answer>x</answer>")\n${fence}`)).toBeNull();
  });

  it('returns null when there is no answer', () => {
    expect(findAnswer('no tags here')).toBeNull();
  });
});

describe('parseCompletion', () => {
  it('joins runnable blocks and skips other languages and blank blocks', () => {
    const text = `${fence}js\na = 1\n${fence}\n${fence}python\nprint(1)\n${fence}\n${fence}\n   \n${fence}\n${fence}repl\nprint(a)\n${fence}`;
    const parsed = parseCompletion(text);
    expect(parsed.code).toBe('a = 1\nprint(a)');
    expect(parsed.blocks).toHaveLength(4);
    expect(parsed.answer).toBeNull();
  });

  it('has neither code nor answer for plain prose', () => {
    expect(parseCompletion('Hmm, let me think.')).toMatchObject({ code: null, answer: null, blocks: [] });
  });
});
