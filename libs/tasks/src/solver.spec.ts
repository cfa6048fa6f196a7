import { describe, expect, it } from 'vitest';
import { solveTask } from './solver';

describe('solveTask', () => {
  it('niah: accepts needle forms, ignores near misses and similar-named objects', () => {
    const context =
      'The mirror used to be gold. The mirrors in the hall are red. The mirror is not blue. ' +
      'The mirror stand is green.\n\nSilver is the colour of the mirror. The old clerk waited.';
    expect(solveTask('What colour is the mirror?', context)).toEqual({
      status: 'solved',
      type: 'niah',
      answer: 'silver',
    });
  });

  it('niah: reports a missing or contradictory statement', () => {
    expect(solveTask('What colour is the mirror?', 'The mirror used to be gold.')).toMatchObject({
      status: 'unsolved',
      reason: 'no sentence states the colour of the mirror',
    });
    expect(solveTask('What colour is the mirror?', 'The mirror is red. The mirror is blue.')).toMatchObject({
      status: 'unsolved',
      reason: expect.stringContaining('conflicting'),
    });
  });

  it('extractive: needs the exact year and name, and the verb signed', () => {
    const context =
      'The 1987 Harbour Accord was drafted in Oslo. The 1988 Harbour Accord was signed in Lima. ' +
      'The 1987 Harbour Treaty was signed in Perth. It was in Riga that the 1987 Harbour Accord was signed.';
    expect(solveTask('In which city was the 1987 Harbour Accord signed?', context)).toMatchObject({ answer: 'Riga' });
  });

  it('multi_needle: sums exact prices, ignoring past prices and other goods', () => {
    const context =
      'The lamp used to cost $900. The lamp box costs $12. For $1,250 you can buy the lamp. ' +
      'An anvil sells for 40 dollars. The drills cost $5 for a set of three. The price of the drill is $7.';
    expect(solveTask('What is the total price, in dollars, of the lamp, the anvil and the drill?', context)).toEqual({
      status: 'solved',
      type: 'multi_needle',
      answer: '1297',
    });
  });

  it('counting: whole words in any case only', () => {
    const context = 'An apple. Apples and a pineapple. APPLE was written. The apple, applewood and Apple.';
    const question =
      'How many times does the word "apple" appear in the document? Count whole words in any letter case.';
    expect(solveTask(question, context)).toMatchObject({ answer: '4' });
  });

  it('does not claim questions in other forms', () => {
    expect(solveTask('Who wrote the letter?', 'Agnes wrote the letter.')).toEqual({ status: 'unrecognised' });
  });
});
