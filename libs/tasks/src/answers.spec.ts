import { describe, expect, it } from 'vitest';
import { countAnswer, plainAnswer, priceAnswer } from './answers';
import { withThousands } from './text';

describe('answers and aliases', () => {
  it('formats prices with and without separators and dollar signs', () => {
    expect(withThousands(1234567)).toBe('1,234,567');
    expect(priceAnswer(1200)).toEqual({
      answer: '1200',
      aliases: ['1,200', '$1,200', '$1200', '1200 dollars', '1,200 dollars'],
    });
    expect(priceAnswer(85)).toEqual({ answer: '85', aliases: ['$85', '85 dollars'] });
  });

  it('spells small counts and keeps generated names as written', () => {
    expect(countAnswer(7)).toEqual({ answer: '7', aliases: ['seven'] });
    expect(countAnswer(21).aliases).toEqual([]);
    expect(plainAnswer('K7-QX2')).toEqual({ answer: 'K7-QX2', aliases: [] });
  });
});
