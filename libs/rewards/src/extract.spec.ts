import { describe, expect, it } from 'vitest';
import { extractAnswer, extractCodeBlocks, isBlank, lastLineAnswer } from './extract';

describe('extractAnswer', () => {
  it('reads one well-formed tag', () => {
    expect(extractAnswer('The mirror is red.\n<answer> red </answer>')).toEqual({
      answer: 'red',
      tagCount: 1,
      wellFormed: true,
    });
  });

  it('reads the last pair when there are several, and calls it malformed', () => {
    expect(extractAnswer('<answer>blue</answer> no wait <answer>red</answer>')).toEqual({
      answer: 'red',
      tagCount: 2,
      wellFormed: false,
    });
  });

  it('pairs a closing tag with the nearest opening tag before it', () => {
    expect(extractAnswer('<answer><answer>red</answer>')).toEqual({ answer: 'red', tagCount: 2, wellFormed: false });
  });

  it('returns no answer for an unclosed tag or no tag', () => {
    expect(extractAnswer('<answer>red')).toEqual({ answer: null, tagCount: 1, wellFormed: false });
    expect(extractAnswer('red')).toEqual({ answer: null, tagCount: 0, wellFormed: false });
    expect(extractAnswer('</answer>red')).toEqual({ answer: null, tagCount: 0, wellFormed: false });
  });

  it('does not call a blank tag well-formed', () => {
    expect(extractAnswer('<answer> \u200b </answer>').wellFormed).toBe(false);
  });

  it('is case-sensitive about the tag', () => {
    expect(extractAnswer('<ANSWER>red</ANSWER>').tagCount).toBe(0);
  });
});

describe('lastLineAnswer', () => {
  it('takes the last non-blank line without an Answer: prefix or stray tags', () => {
    expect(lastLineAnswer('thinking...\nFinal answer: red\n\n  ')).toBe('red');
    expect(lastLineAnswer('blah\n<answer>red')).toBe('red');
    expect(lastLineAnswer('one line')).toBe('one line');
  });

  it('returns null for blank text', () => {
    expect(lastLineAnswer('')).toBeNull();
    expect(lastLineAnswer('\n \n\u200b\n')).toBeNull();
  });
});

describe('isBlank', () => {
  it('treats whitespace and invisible characters as blank', () => {
    expect(isBlank(' \n\t\u200b\ufeff')).toBe(true);
    expect(isBlank(' a ')).toBe(false);
  });
});

describe('extractCodeBlocks', () => {
  it('returns the bodies of fenced blocks with any info string', () => {
    const text = 'a\n```js\nllm(1)\n```\nb\n```\nprint(2)\n```\n```repl\nx\n```';
    expect(extractCodeBlocks(text)).toEqual(['llm(1)\n', 'print(2)\n', 'x\n']);
  });

  it('runs an unclosed final block to the end of the text', () => {
    expect(extractCodeBlocks('```js\nconst a = llm(')).toEqual(['const a = llm(']);
  });

  it('finds nothing in plain prose', () => {
    expect(extractCodeBlocks('no code here, just llm(x) in prose')).toEqual([]);
  });
});
