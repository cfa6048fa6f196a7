import { ModelError } from '../errors';
import { DEFAULT_SPECIAL_TOKENS, specialSplitter } from './byte.tokenizer';
import type { Tokenizer } from './tokenizer';

/** A word (letters and digits) or one other visible character; whitespace separates and is dropped. */
const PIECE = /[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu;

/** FNV-1a over the UTF-16 code units: a fixed, well-spread hash that needs no table. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * The hashing trick for an open vocabulary (Weinberger et al. 2009; fastText's buckets): every word and every
 * punctuation mark is one token, its id a hash bucket, so no word is unknown and a 1,000-character chunk is about 200
 * positions instead of 1,000 bytes. It is a reading tokenizer, for the span reader (whose answers are spans of the
 * chunk's characters, never decoded ids): distinct words can share a bucket and whitespace is dropped, so `decode`
 * is not an inverse of `encode` — it names each bucket (`⟨w:123⟩`).
 */
export class HashedWordTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly specialTokens: ReadonlyMap<string, number>;
  private readonly specialById: Map<number, string>;
  private readonly splitter: RegExp | null;

  constructor(
    readonly buckets: number,
    readonly specials: readonly string[] = DEFAULT_SPECIAL_TOKENS,
  ) {
    if (!Number.isInteger(buckets) || buckets < 2)
      throw new ModelError('INVALID_TOKENIZER', `hashed-word buckets must be an integer >= 2, got ${buckets}`);
    this.specialTokens = new Map(specials.map((s, i) => [s, i]));
    this.specialById = new Map(specials.map((s, i) => [i, s]));
    this.vocabSize = specials.length + buckets;
    this.splitter = specialSplitter(specials);
  }

  encode(text: string): number[] {
    const ids: number[] = [];
    for (const piece of this.splitter ? text.split(this.splitter) : [text]) {
      const special = this.specialTokens.get(piece);
      if (special !== undefined) ids.push(special);
      else for (const m of piece.matchAll(PIECE)) ids.push(this.bucketOf(m[0]));
    }
    return ids;
  }

  decode(ids: readonly number[]): string {
    return ids
      .map((id) => {
        const special = this.specialById.get(id);
        if (special !== undefined) return special;
        if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize)
          throw new ModelError('INVALID_TOKENIZER', `token id ${id} is outside the vocabulary`);
        return `⟨w:${id}⟩`;
      })
      .join('');
  }

  tokenId(token: string): number | undefined {
    const special = this.specialTokens.get(token);
    if (special !== undefined) return special;
    const pieces = [...token.matchAll(PIECE)];
    return pieces.length === 1 && pieces[0][0] === token ? this.bucketOf(token) : undefined;
  }

  files(): Record<string, unknown> {
    return {
      'tokenizer.json': { fathom_hashed_words: { version: 1, buckets: this.buckets, specials: this.specials } },
    };
  }

  /** Recognises a tokenizer.json written by `files()`, else null. */
  static fromTokenizerJson(json: unknown): HashedWordTokenizer | null {
    const spec = (json as { fathom_hashed_words?: { buckets?: unknown; specials?: unknown } })?.fathom_hashed_words;
    if (spec === undefined) return null;
    const { buckets, specials } = spec;
    if (typeof buckets !== 'number' || !Array.isArray(specials) || specials.some((s) => typeof s !== 'string'))
      throw new ModelError('INVALID_TOKENIZER', 'tokenizer.json: fathom_hashed_words needs buckets and specials');
    return new HashedWordTokenizer(buckets, specials as string[]);
  }

  private bucketOf(piece: string): number {
    return this.specials.length + (fnv1a(piece) % this.buckets);
  }
}
