import { escapeRegExp } from '@fathom/contracts';
import { ModelError } from '../errors';
import { byteLevelBpeFiles } from './bpe.files';
import type { Tokenizer } from './tokenizer';

/** The special tokens of the default model, given ids 256, 257, … in this order. */
export const DEFAULT_SPECIAL_TOKENS = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|pad|>'] as const;

/**
 * GPT-2's printable stand-in for every byte (what Hugging Face ByteLevel pre-tokenizers use), so a byte
 * vocabulary can be written as an ordinary tokenizer.json.
 */
export function byteToUnicode(): string[] {
  const printable = (b: number) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  const table: string[] = [];
  let next = 256;
  for (let b = 0; b < 256; b++) table.push(String.fromCodePoint(printable(b) ? b : next++));
  return table;
}

/**
 * A regex that `String.split` cuts text with around each special token, keeping the specials as their own parts
 * (longest first, so a special that prefixes another never wins); null when there are none.
 */
export function specialSplitter(specials: readonly string[]): RegExp | null {
  const sorted = [...specials].sort((a, b) => b.length - a.length);
  return sorted.length ? new RegExp(`(${sorted.map(escapeRegExp).join('|')})`) : null;
}

/**
 * One token per UTF-8 byte (ids 0–255) plus special tokens (ids from 256). Needs no training and never sees an
 * unknown character; the default model's tokenizer. Its tokenizer.json is a merge-free byte-level BPE, so
 * Hugging Face tokenizers load it and produce the same ids.
 */
export class ByteTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly specialTokens: ReadonlyMap<string, number>;
  private readonly specialById: Map<number, string>;
  private readonly splitter: RegExp | null;

  constructor(readonly specials: readonly string[] = DEFAULT_SPECIAL_TOKENS) {
    this.specialTokens = new Map(specials.map((s, i) => [s, 256 + i]));
    this.specialById = new Map(specials.map((s, i) => [256 + i, s]));
    this.vocabSize = 256 + specials.length;
    this.splitter = specialSplitter(specials);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    const utf8 = new TextEncoder();
    for (const piece of this.splitter ? text.split(this.splitter) : [text]) {
      const special = this.specialTokens.get(piece);
      if (special !== undefined) ids.push(special);
      else for (const b of utf8.encode(piece)) ids.push(b);
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    let out = '';
    let bytes: number[] = [];
    const flush = () => {
      out += new TextDecoder().decode(new Uint8Array(bytes));
      bytes = [];
    };
    for (const id of ids) {
      if (id >= 0 && id < 256) bytes.push(id);
      else {
        const special = this.specialById.get(id);
        if (special === undefined)
          throw new ModelError('INVALID_TOKENIZER', `token id ${id} is outside the byte vocabulary`);
        flush();
        out += special;
      }
    }
    flush();
    return out;
  }

  tokenId(token: string): number | undefined {
    const special = this.specialTokens.get(token);
    if (special !== undefined) return special;
    const bytes = new TextEncoder().encode(token);
    return bytes.length === 1 ? bytes[0] : undefined;
  }

  files(): Record<string, unknown> {
    const table = byteToUnicode();
    return byteLevelBpeFiles({
      kind: 'byte',
      vocab: Object.fromEntries(table.map((ch, b) => [ch, b])),
      merges: [],
      specials: this.specialTokens,
    });
  }

  /**
   * Recognises a tokenizer.json written by `files()` (a merge-free vocabulary of exactly the 256 bytes in order,
   * specials from 256) and returns the equivalent `ByteTokenizer`, else null.
   */
  static fromTokenizerJson(json: unknown): ByteTokenizer | null {
    const j = json as {
      model?: { type?: string; vocab?: Record<string, number>; merges?: unknown[] };
      added_tokens?: { id: number; content: string }[];
    };
    if (j?.model?.type !== 'BPE' || (j.model.merges?.length ?? 0) !== 0 || !j.model.vocab) return null;
    const table = byteToUnicode();
    const vocab = j.model.vocab;
    if (Object.keys(vocab).length !== 256 || table.some((ch, b) => vocab[ch] !== b)) return null;
    const added = [...(j.added_tokens ?? [])].sort((a, b) => a.id - b.id);
    if (added.some((t, i) => t.id !== 256 + i)) return null;
    return new ByteTokenizer(added.map((t) => t.content));
  }
}
