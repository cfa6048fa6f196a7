import { describe, expect, it } from 'vitest';
import { ModelError } from '../errors';
import { trainBpe, trainBpeTokenizer } from './bpe.trainer';
import { HfTokenizer } from './hf.tokenizer';

const corpus = [
  'The van is Nesnes. The red van is not Nesnes, it is Tarvok.',
  '<|im_start|>user\nWhat colour is the van?<|im_end|>\n<|im_start|>assistant\nNesnes<|im_end|>',
  'Delegates signed the Harbour Accord in Velmora in 1926; the price was $1,391.',
];

describe('trainBpe', () => {
  const tok = trainBpeTokenizer(Array(20).fill(corpus).flat(), { vocabSize: 320 });

  it('learns merges up to the asked size and gives the special tokens the ids after them', () => {
    expect(tok.vocabSize).toBe(324);
    expect(tok.specialTokens.get('<|endoftext|>')).toBe(320);
    expect(tok.specialTokens.get('<|im_end|>')).toBe(322);
    expect(tok.encode('Nesnes').length).toBe(1);
    expect(tok.encode('The van is Nesnes.').length).toBe(8); // four words, three spaces, a full stop
  });

  it('round-trips text it never saw, special tokens and multi-byte characters included', () => {
    const text = '<|im_start|>user\nwhere is the wörld 🌊 ×3 Qzxv-9?<|im_end|>\n';
    expect(tok.decode(tok.encode(text))).toBe(text);
    expect(tok.encode('<|im_end|>')).toEqual([322]);
  });

  it('encodes a word the same wherever it stands, so a copied value is a run of the chunk tokens', () => {
    const word = tok.encode('Nesnes');
    for (const chunk of ['The van is Nesnes.', '"Nesnes"', 'Nesnes,Tarvok', '\nNesnes']) {
      const ids = tok.encode(chunk);
      const at = ids.findIndex((_, i) => word.every((w, k) => ids[i + k] === w));
      expect(at, chunk).toBeGreaterThanOrEqual(0);
    }
  });

  it('is deterministic and loads as a Hugging Face tokenizer.json', () => {
    const a = trainBpe(corpus, { vocabSize: 300 });
    const b = trainBpe(corpus, { vocabSize: 300 });
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const hf = new HfTokenizer(a['tokenizer.json'], a['tokenizer_config.json'] as Record<string, unknown>);
    expect(hf.decode(hf.encode(corpus[2]))).toBe(corpus[2]);
  });

  it('stops early when no pair is frequent enough, and rejects a vocabulary smaller than the bytes', () => {
    expect(trainBpeTokenizer(['ab'], { vocabSize: 1000 }).vocabSize).toBe(256 + 4);
    expect(() => trainBpe(corpus, { vocabSize: 100 })).toThrow(ModelError);
  });
});
