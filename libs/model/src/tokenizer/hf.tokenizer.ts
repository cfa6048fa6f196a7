import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { ModelError } from '../errors';
import type { Tokenizer } from './tokenizer';

/**
 * A Hugging Face `tokenizer.json` (byte-level BPE as Qwen2 and Llama 3 use, with their added chat tokens),
 * run by `@huggingface/tokenizers` (pure JS, no network). Encoding never adds BOS/EOS; callers render those.
 */
export class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly specialTokens: ReadonlyMap<string, number>;
  private readonly impl: HfTokenizerImpl;

  constructor(
    private readonly tokenizerJson: unknown,
    private readonly tokenizerConfig: Record<string, unknown> = {},
  ) {
    try {
      this.impl = new HfTokenizerImpl(tokenizerJson as object, tokenizerConfig);
    } catch (error) {
      throw new ModelError('INVALID_TOKENIZER', `tokenizer.json does not load: ${(error as Error).message}`);
    }
    const vocab = this.impl.get_vocab(true);
    let maxId = -1;
    for (const id of vocab.values()) maxId = Math.max(maxId, id);
    this.vocabSize = maxId + 1;
    const added =
      (tokenizerJson as { added_tokens?: { id: number; content: string; special?: boolean }[] }).added_tokens ?? [];
    this.specialTokens = new Map(added.filter((t) => t.special).map((t) => [t.content, t.id]));
  }

  encode(text: string): number[] {
    return this.impl.encode(text, { add_special_tokens: false }).ids;
  }

  decode(ids: readonly number[]): string {
    for (const id of ids) {
      if (!Number.isInteger(id) || id < 0 || id >= this.vocabSize) {
        throw new ModelError('INVALID_TOKENIZER', `token id ${id} is outside the vocabulary of ${this.vocabSize}`);
      }
    }
    return this.impl.decode([...ids], { skip_special_tokens: false, clean_up_tokenization_spaces: false });
  }

  tokenId(token: string): number | undefined {
    return this.impl.token_to_id(token);
  }

  files(): Record<string, unknown> {
    return { 'tokenizer.json': this.tokenizerJson, 'tokenizer_config.json': this.tokenizerConfig };
  }
}
