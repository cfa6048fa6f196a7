/**
 * Text ↔ token ids, as the model and the sampler need it; implemented by `ByteTokenizer` and `HfTokenizer`, and for
 * span readers (which never decode) by `HashedWordTokenizer`, whose `decode` is not an inverse.
 */
export interface Tokenizer {
  /** One more than the largest id `encode` can return (≤ the model's vocab_size). */
  readonly vocabSize: number;
  /** Special tokens (chat markers, end of text, pad) by their text. */
  readonly specialTokens: ReadonlyMap<string, number>;
  /** Encodes text; special-token strings in it become their ids. No BOS or other tokens are added. */
  encode(text: string): number[];
  /** Decodes ids; special tokens are rendered as their text, so `decode(encode(s)) === s`. */
  decode(ids: readonly number[]): string;
  /** The id of a special or ordinary token by its text, if it has one. */
  tokenId(token: string): number | undefined;
  /** The files that make up the tokenizer in a Hugging Face checkpoint folder, by file name. */
  files(): Record<string, unknown>;
}
