import { describe, expect, it } from 'vitest';
import { foldUnicode, normalizeAnswer, numbersEqual, parseNumber } from './normalize';

describe('normalizeAnswer', () => {
  it.each([
    ['Red', 'red'],
    ['  The   Eiffel  Tower. ', 'eiffel tower'],
    ['an apple', 'apple'],
    ['New-York', 'new york'],
    ['"Paris"!', 'paris'],
    ["O'Brien", 'obrien'],
    ['Café', 'cafe'],
    ['1,200', '1200'],
    ['the', ''],
    ['', ''],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });

  it('keeps articles that are part of a word', () => {
    expect(normalizeAnswer('Theodore and Anna')).toBe('theodore and anna');
  });
});

describe('foldUnicode', () => {
  it.each([
    ['Pаris', 'Cyrillic а'],
    ['Pαris', 'Greek α'],
    ['ＰＡＲＩＳ', 'fullwidth'],
    ['𝐏𝐚𝐫𝐢𝐬', 'mathematical bold'],
    ['Par\u200bis', 'zero-width space'],
    ['Pa\u00adris', 'soft hyphen'],
    ['\u202eParis', 'bidi override'],
    ['РАRIS', 'Cyrillic capitals Р and А'],
  ])('folds %j (%s) to "paris"', (input) => {
    expect(foldUnicode(input)).toBe('paris');
  });

  it('leaves letters without a Latin look-alike alone', () => {
    expect(foldUnicode('Москва')).not.toBe(foldUnicode('Moskva'));
    expect(foldUnicode('東京')).toBe('東京');
  });
});

describe('parseNumber', () => {
  it.each([
    ['1200', 1200],
    ['1,200', 1200],
    ['1 200', 1200],
    ['1,200,000.50', 1_200_000.5],
    ['$1,200', 1200],
    ['-3.5', -3.5],
    ['\u22123.5', -3.5],
    ['12.50', 12.5],
    ['.5', 0.5],
    ['42.', 42],
    ['15%', 15],
    ['twelve', 12],
    ['Seven', 7],
    ['１２', 12],
  ])('reads %j as %d', (input, expected) => {
    expect(parseNumber(input)).toBe(expected);
  });

  it.each([
    '',
    'red',
    '1,20',
    '12 apples',
    '1200 or 1300',
    '1,200,1300',
    '1e5',
    '--1',
    'Infinity',
    '12-13',
    '9'.repeat(80),
  ])('does not read %j as one number', (input) => {
    expect(parseNumber(input)).toBeNull();
  });
});

describe('numbersEqual', () => {
  it('ignores floating-point noise but not real differences', () => {
    expect(numbersEqual(0.1 + 0.2, 0.3)).toBe(true);
    expect(numbersEqual(12.5, 12.500000000001)).toBe(true);
    expect(numbersEqual(1200, 1200.001)).toBe(false);
    expect(numbersEqual(1e12, 1e12 + 1)).toBe(false);
    expect(numbersEqual(3, 4)).toBe(false);
  });
});
