import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ByteTokenizer } from './byte.tokenizer';
import { HfTokenizer } from './hf.tokenizer';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'));
const chat = '<|im_start|>user\nhello the wörld 🌊 ×3<|im_end|>\n<|im_start|>assistant\n';

describe('ByteTokenizer', () => {
  const tok = new ByteTokenizer();

  it('maps bytes to themselves and specials to 256+', () => {
    expect(tok.vocabSize).toBe(260);
    expect(tok.encode('<|im_start|>hi<|im_end|>')).toEqual([257, 104, 105, 258]);
    expect(tok.encode('é')).toEqual([0xc3, 0xa9]);
    expect(tok.tokenId('<|pad|>')).toBe(259);
  });

  it('round-trips text with special tokens and multi-byte characters', () => {
    expect(tok.decode(tok.encode(chat))).toBe(chat);
    expect(() => tok.decode([300])).toThrow(/300/);
  });

  it('writes a tokenizer.json that Hugging Face tokenizers encode identically and that reloads natively', () => {
    const files = tok.files();
    const hf = new HfTokenizer(files['tokenizer.json'], files['tokenizer_config.json'] as Record<string, unknown>);
    expect(hf.encode(chat)).toEqual(tok.encode(chat));
    expect(hf.decode(tok.encode(chat))).toBe(chat);
    expect(ByteTokenizer.fromTokenizerJson(files['tokenizer.json'])?.specials).toEqual(tok.specials);
  });
});

describe('HfTokenizer on a Qwen2-style byte-level BPE tokenizer.json', () => {
  const tok = new HfTokenizer(fixture('qwen2-style.tokenizer.json'), fixture('qwen2-style.tokenizer_config.json'));

  it('applies merges in rank order and splits out special tokens', () => {
    expect(tok.encode('hello the')).toEqual([261, 259]);
    expect(tok.encode('<|im_start|>user\nhello<|im_end|>')).toEqual([263, 117, 115, 101, 114, 10, 261, 264]);
    expect(tok.specialTokens.get('<|im_end|>')).toBe(264);
    expect(tok.vocabSize).toBe(265);
    expect(ByteTokenizer.fromTokenizerJson(fixture('qwen2-style.tokenizer.json'))).toBeNull();
  });

  it('round-trips text including special tokens', () => {
    expect(tok.decode(tok.encode(chat))).toBe(chat);
    const code = 'x = ctx.indexOf("needle");\n\tprint(x)  <|endoftext|>';
    expect(tok.decode(tok.encode(code))).toBe(code);
  });
});

describe('HfTokenizer on a Llama 3-style tokenizer.json', () => {
  const json = fixture('qwen2-style.tokenizer.json');
  json.normalizer = null;
  json.model.ignore_merges = true;
  json.pre_tokenizer.pretokenizers[0].pattern.Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  json.added_tokens = ['<|begin_of_text|>', '<|start_header_id|>', '<|end_header_id|>', '<|eot_id|>'].map(
    (content, i) => ({
      id: 262 + i,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    }),
  );
  const tok = new HfTokenizer(json, { tokenizer_class: 'PreTrainedTokenizerFast' });

  it('encodes its chat header tokens and round-trips', () => {
    const text = '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhello 12345<|eot_id|>';
    const ids = tok.encode(text);
    expect(ids.slice(0, 2)).toEqual([262, 263]);
    expect(ids).toContain(261);
    expect(ids[ids.length - 1]).toBe(265);
    expect(tok.decode(ids)).toBe(text);
  });
});
