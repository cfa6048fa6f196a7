import { describe, expect, it } from 'vitest';
import { HashedWordTokenizer } from './hashed-word.tokenizer';

describe('HashedWordTokenizer', () => {
  const tokenizer = new HashedWordTokenizer(4096);

  it('makes one token of each word and each punctuation mark, specials kept, whitespace dropped', () => {
    const ids = tokenizer.encode('<|im_start|>user\nThe code is K9-BKG.<|im_end|>');
    expect(ids).toHaveLength(10); // special, user, The, code, is, K9, -, BKG, ., special
    expect(ids[0]).toBe(tokenizer.tokenId('<|im_start|>'));
    expect(ids.at(-1)).toBe(tokenizer.tokenId('<|im_end|>'));
    expect(ids.every((id) => id >= 0 && id < tokenizer.vocabSize)).toBe(true);
    expect(tokenizer.encode('code code')).toEqual([tokenizer.tokenId('code'), tokenizer.tokenId('code')]);
    expect(tokenizer.tokenId('two words')).toBeUndefined();
  });

  it('round-trips through its tokenizer.json and refuses a malformed one', () => {
    const json = tokenizer.files()['tokenizer.json'];
    const loaded = HashedWordTokenizer.fromTokenizerJson(JSON.parse(JSON.stringify(json)))!;
    expect(loaded.encode('Gromble wist 42.')).toEqual(tokenizer.encode('Gromble wist 42.'));
    expect(HashedWordTokenizer.fromTokenizerJson({ model: { type: 'BPE' } })).toBeNull();
    expect(() => HashedWordTokenizer.fromTokenizerJson({ fathom_hashed_words: { buckets: 'x' } })).toThrow(/buckets/);
  });
});
