/** What a byte-level BPE's Hugging Face files hold; `ByteTokenizer` (no merges) and `trainBpe` both write them. */
export interface ByteLevelBpe {
  /** `tokenizer_config.json`'s `fathom_tokenizer`: which of FATHOM's tokenizers wrote the files. */
  kind: 'byte' | 'bpe';
  /** Token (in GPT-2's printable byte alphabet) → id. */
  vocab: Record<string, number>;
  /** Merges in rank order, each "left right". */
  merges: string[];
  /** Special tokens and their ids. */
  specials: ReadonlyMap<string, number>;
  /** A Split pre-tokenizer's regex run before the byte mapping; absent: the whole text is one piece. */
  splitPattern?: string;
}

/** `tokenizer.json` and `tokenizer_config.json` of a byte-level BPE, as Hugging Face tokenizers read them. */
export function byteLevelBpeFiles(bpe: ByteLevelBpe): Record<string, unknown> {
  const addedTokens = [...bpe.specials].map(([content, id]) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  }));
  const level = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false };
  const preTokenizer =
    bpe.splitPattern === undefined
      ? level
      : {
          type: 'Sequence',
          pretokenizers: [
            { type: 'Split', pattern: { Regex: bpe.splitPattern }, behavior: 'Isolated', invert: false },
            level,
          ],
        };
  return {
    'tokenizer.json': {
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: addedTokens,
      normalizer: null,
      pre_tokenizer: preTokenizer,
      post_processor: null,
      decoder: level,
      model: {
        type: 'BPE',
        dropout: null,
        unk_token: null,
        continuing_subword_prefix: null,
        end_of_word_suffix: null,
        fuse_unk: false,
        byte_fallback: false,
        ignore_merges: false,
        vocab: bpe.vocab,
        merges: bpe.merges,
      },
    },
    'tokenizer_config.json': {
      tokenizer_class: 'PreTrainedTokenizerFast',
      fathom_tokenizer: bpe.kind,
      added_tokens_decoder: Object.fromEntries(addedTokens.map(({ id, ...rest }) => [String(id), rest])),
      bos_token: null,
      eos_token: bpe.specials.has('<|endoftext|>') ? '<|endoftext|>' : null,
      pad_token: bpe.specials.has('<|pad|>') ? '<|pad|>' : null,
      clean_up_tokenization_spaces: false,
      model_max_length: 1_000_000,
    },
  };
}
