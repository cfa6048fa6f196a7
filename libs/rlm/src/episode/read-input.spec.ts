import {
  ByteTokenizer,
  HashedWordTokenizer,
  wordFeature,
  wordFeatureCount,
  WORD_TAGS,
  type SentenceMatch,
  type WordShape,
} from '@fathom/model';
import { describe, expect, it } from 'vitest';
import { renderSubcallPrompt } from '../prompt';
import { encodeReadInput, goldSpan, questionWords, spanText } from './read-input';
import { encodeSegments } from './tokens';

const question = 'What is the code of the murenur fogor?';
const chunk = 'The code of the murenur bator is K9-BKG. The code of the Murenur fogor is QJ5-QHW.';

describe('encodeReadInput', () => {
  it('gives the byte tokenizer exactly the ids of the rendered sub-call prompt', () => {
    const bytes = new ByteTokenizer();
    const input = encodeReadInput(question, chunk, bytes);
    expect(input.ids).toEqual(encodeSegments(renderSubcallPrompt(question, chunk), [], bytes).ids);
    expect(input.none).toBe(input.ids.length - 1);
  });

  it('marks the chunk words that occur in the question, case-folded, function words aside', () => {
    expect([...questionWords(question)].sort()).toEqual(['code', 'fogor', 'murenur']);
    const input = encodeReadInput(question, chunk, new HashedWordTokenizer(1024));
    const matched = input.words
      .filter((w) => input.match[w.tokStart] === 1)
      .map((w) => chunk.slice(w.charStart, w.charEnd));
    expect(matched).toEqual(['code', 'murenur', 'code', 'Murenur', 'fogor']);
    expect(input.match.slice(0, input.words[0].tokStart).every((m) => m === 0)).toBe(true);
  });

  it("gives each chunk token its word shape and its sentence match, a name apart from a sentence's first word", () => {
    const text = 'Engraved beneath the Fusgond drum, one reads M3-CS6. Dana paid 1,339 to NATO for a drum.';
    const input = encodeReadInput('How is the Fusgond drum marked?', text, new HashedWordTokenizer(1024));
    const features = input.words.map((w) => `${text.slice(w.charStart, w.charEnd)}:${input.feature[w.tokStart]}`);
    const id = (shape: WordShape, match: SentenceMatch) => wordFeature(shape, match);
    expect(features).toEqual([
      `Engraved:${id('capitalised-first', 'most')}`,
      `beneath:${id('lower', 'most')}`,
      `the:${id('lower', 'most')}`,
      `Fusgond:${id('capitalised', 'most')}`,
      `drum:${id('lower', 'most')}`,
      `one:${id('lower', 'most')}`,
      `reads:${id('lower', 'most')}`,
      `M3:${id('letters-digits', 'most')}`,
      `CS6:${id('letters-digits', 'most')}`,
      `Dana:${id('capitalised-first', 'some')}`,
      `paid:${id('lower', 'some')}`,
      `1:${id('digits', 'some')}`,
      `339:${id('digits', 'some')}`,
      `to:${id('lower', 'some')}`,
      `NATO:${id('upper', 'some')}`,
      `for:${id('lower', 'some')}`,
      `a:${id('lower', 'some')}`,
      `drum:${id('lower', 'some')}`,
    ]);
    const stop = input.words[8].tokEnd + 1; // the full stop closes the first sentence
    expect(input.feature[stop]).toBe(id('other', 'most'));
    expect(input.feature.slice(0, input.words[0].tokStart).every((f) => f === 0)).toBe(true);
    expect(input.feature.at(-1)).toBe(0);
    const elsewhere = encodeReadInput('Where is the lamp?', 'Dana paid 12.', new HashedWordTokenizer(1024));
    expect(elsewhere.feature[elsewhere.words[0].tokStart]).toBe(id('capitalised-first', 'none'));
  });

  it('with sentence recency, numbers the sentences holding the most question words back from the last', () => {
    const text =
      'The lamp was in Dosk. Vera moved the red lamp to Pell. The cup went to Rin. Ada moved the red lamp to Sorn. ' +
      'Bram moved the red lamp to Tull. Nobody knew.';
    const asked = 'Where is the red lamp?';
    const input = encodeReadInput(asked, text, new HashedWordTokenizer(1024), { sentenceRecency: true });
    const featureOf = (word: string) => {
      const at = text.indexOf(word);
      return input.feature[input.words.find((w) => w.charStart === at)!.tokStart];
    };
    expect(featureOf('Dosk')).toBe(wordFeature('capitalised', 'most', 'none')); // holds "lamp", not "red lamp"
    expect(featureOf('Pell')).toBe(wordFeature('capitalised', 'most', 'earlier'));
    expect(featureOf('Rin')).toBe(wordFeature('capitalised', 'none', 'none'));
    expect(featureOf('Sorn')).toBe(wordFeature('capitalised', 'most', 'second'));
    expect(featureOf('Tull')).toBe(wordFeature('capitalised', 'most', 'last'));
    expect(featureOf('Nobody')).toBe(wordFeature('capitalised-first', 'none', 'none'));
    const without = encodeReadInput(asked, text, new HashedWordTokenizer(1024));
    expect(without.feature[without.words.find((w) => w.charStart === text.indexOf('Tull'))!.tokStart]).toBe(
      wordFeature('capitalised', 'most'),
    );
    expect(Math.max(...without.feature)).toBeLessThan(wordFeatureCount(false));
    expect(Math.max(...input.feature)).toBeLessThan(wordFeatureCount(true));
  });

  it("with word tags, gives each chunk token its word's part-of-speech tag, a contraction's negation included", () => {
    const text = "Had Vera won, the drum would read K9. It wasn't marked QJ5-QHW. Nobody never listed the drum.";
    const input = encodeReadInput('How is the drum marked?', text, new HashedWordTokenizer(1024), { wordTags: true });
    const tagOf = (word: string) => {
      const at = text.indexOf(word);
      return WORD_TAGS[input.tag[input.words.find((w) => w.charStart === at)!.tokStart]];
    };
    expect(tagOf('Had')).toBe('condition');
    expect(tagOf('would')).toBe('modal');
    expect(tagOf('drum')).toBe('noun');
    expect(tagOf('wasn')).toBe('negative');
    expect(tagOf('never')).toBe('negative');
    expect(tagOf('listed')).toBe('past-verb');
    expect(tagOf('Vera')).toBe('proper-noun');
    expect(WORD_TAGS[input.tag[input.words[2].tokEnd + 1]]).toBe('punctuation'); // the comma after "won"
    expect(input.tag.slice(0, input.words[0].tokStart).every((t) => t === 0)).toBe(true);
    expect(input.tag.at(-1)).toBe(0);
    expect(input.words.every((w) => input.tag[w.tokStart] > 0)).toBe(true);
    const untagged = encodeReadInput('How is the drum marked?', text, new HashedWordTokenizer(1024));
    expect(untagged.tag.every((t) => t === 0)).toBe(true);
  });

  it('finds the gold span on word edges, last outside the distractors, and reads it back from the chunk', () => {
    const input = encodeReadInput(question, chunk, new HashedWordTokenizer(1024));
    const gold = goldSpan(input, chunk, 'qj5-qhw')!;
    expect(spanText(input, chunk, gold.start, gold.end)).toBe('QJ5-QHW');
    const avoid = [{ start: 0, end: chunk.indexOf('.') + 1 }];
    const twice = 'The murenur bator is K9-BKG. Later the murenur fogor is K9-BKG.';
    const again = encodeReadInput(question, twice, new HashedWordTokenizer(1024));
    const chosen = goldSpan(again, twice, 'K9-BKG', avoid)!;
    const startOf = (span: { start: number }) => again.words.find((w) => w.tokStart === span.start)!.charStart;
    expect(startOf(chosen)).toBe(twice.lastIndexOf('K9'));
    // A value stated twice outside the distractors is read where it is stated last (a state that came back).
    expect(startOf(goldSpan(again, twice, 'K9-BKG')!)).toBe(twice.lastIndexOf('K9'));
    const last = [{ start: twice.indexOf('Later'), end: twice.length }];
    expect(startOf(goldSpan(again, twice, 'K9-BKG', last)!)).toBe(twice.indexOf('K9'));
    expect(goldSpan(input, chunk, 'unknown')).toEqual({ start: input.none, end: input.none });
    expect(goldSpan(input, chunk, 'BKG. Th')).toBeNull(); // ends inside a word
    expect(goldSpan(input, chunk, '9-BKG')).toBeNull(); // starts inside a word
    expect(spanText(input, chunk, input.none, input.none)).toBe('unknown');
  });
});
