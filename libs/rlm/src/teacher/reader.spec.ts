import { describe, expect, it } from 'vitest';
import { parseTaskQuestion } from './question';
import { countWholeWord, parsePrice, readCity, readColour, readPrice } from './reader';
import { answerSubcallAsTeacher, SUBCALL_UNKNOWN } from './subcall';

describe('parseTaskQuestion', () => {
  it('reads the key of each generator question form', () => {
    expect(parseTaskQuestion('What colour is the mirror?')).toMatchObject({ type: 'niah', object: 'mirror' });
    expect(parseTaskQuestion('In which city was the 1987 Harbour Accord signed?')).toMatchObject({
      type: 'extractive',
      key: '1987 Harbour Accord',
      name: 'Harbour Accord',
    });
    expect(
      parseTaskQuestion('What is the total price, in dollars, of the lamp, the drill and the globe?'),
    ).toMatchObject({ type: 'multi_needle', items: ['lamp', 'drill', 'globe'] });
    expect(
      parseTaskQuestion('How many times does the word "apple" appear in the document? Count whole words.'),
    ).toMatchObject({ type: 'counting', word: 'apple' });
  });

  it('refuses other questions and keys that would break the code it writes', () => {
    expect(parseTaskQuestion('Who wrote the letter?')).toBeNull();
    expect(parseTaskQuestion("What colour is the it's/(mirror)?")).toBeNull();
  });
});

describe('careful reader', () => {
  it('takes the needle forms and ignores near misses and decoys', () => {
    const text = [
      'The mirror used to be gold.',
      'The mirror is not red.',
      'The mirror stand is blue.',
      "The mirror's frame is pink.",
      'Silver is the colour of the mirror.',
    ].join(' ');
    expect(readColour('mirror', text)).toBe('silver');
    expect(readColour('mirror', 'Someone has painted the mirror teal.')).toBe('teal');
    expect(readColour('mirror', 'The mirror used to be gold.')).toBeNull();
    expect(readColour('mirror', 'The mirror is red. The mirror is blue.')).toBeNull();
  });

  it('reads cities and prices in every accepted form only', () => {
    const k = '1987 Harbour Accord';
    expect(
      readCity(k, 'The 1987 Harbour Accord was drafted in Oslo. Lisbon hosted the signing of the 1987 Harbour Accord.'),
    ).toBe('Lisbon');
    expect(readCity(k, 'The 1988 Harbour Accord was signed in Oslo.')).toBeNull();
    expect(readCity(k, 'It was in Porto that the 1987 Harbour Accord was signed.')).toBe('Porto');
    expect(readPrice('lamp', 'The lamps cost $12 for a set of three. A lamp sells for 1,250 dollars.')).toBe(1250);
    expect(readPrice('lamp', 'Last year the lamp cost $9. The lamp box costs $3. For $45 you can buy the lamp.')).toBe(
      45,
    );
    expect(readPrice('lamp', 'A second-hand lamp sells for 12 dollars.')).toBeNull();
  });

  it('counts whole words in any case', () => {
    expect(countWholeWord('apple', 'Apple apples pineapple APPLE apple. applewood')).toBe(3);
  });

  it('reads printed prices', () => {
    expect(parsePrice('1,250')).toBe(1250);
    expect(parsePrice('$45')).toBe(45);
    expect(parsePrice('undefined')).toBeNull();
  });
});

describe('answerSubcallAsTeacher', () => {
  it('answers from the chunk alone', () => {
    expect(answerSubcallAsTeacher('What colour is the mirror?', 'The mirror is teal.')).toBe('teal');
    expect(answerSubcallAsTeacher('What colour is the mirror?', 'The mirror used to be teal.')).toBe(SUBCALL_UNKNOWN);
    expect(answerSubcallAsTeacher('What is the price of the lamp?', 'The lamp costs $1,250.')).toBe('1250');
    expect(
      answerSubcallAsTeacher(
        'In which city was the 1987 Harbour Accord signed?',
        'The 1987 Harbour Accord was signed in Oslo.',
      ),
    ).toBe('Oslo');
    expect(
      answerSubcallAsTeacher(
        'What is the total price, in dollars, of the lamp and the drill?',
        'The lamp costs $5. The price of the drill is $7.',
      ),
    ).toBe('12');
    expect(answerSubcallAsTeacher('Summarise this.', 'The lamp costs $5.')).toBe(SUBCALL_UNKNOWN);
    expect(answerSubcallAsTeacher('What colour is the mirror?')).toBe(SUBCALL_UNKNOWN);
  });
});
