import { ModelError } from '../errors';
import { byteLevelBpeFiles } from './bpe.files';
import { byteToUnicode, DEFAULT_SPECIAL_TOKENS, specialSplitter } from './byte.tokenizer';
import { HfTokenizer } from './hf.tokenizer';

/**
 * What a trained BPE splits text into before merging: runs of letters, runs of digits, runs of other visible
 * characters, runs of whitespace. No piece carries a leading space, so a word encodes to the same tokens wherever
 * it stands ("Nesnes" alone, after a space or after a quote): a value copied out of a chunk is a run of the chunk's
 * tokens, which extractive reads need.
 */
export const BPE_SPLIT_PATTERN = '\\p{L}+|\\p{N}+|[^\\s\\p{L}\\p{N}]+|\\s+';

export interface BpeTrainOptions {
  /** Size of the vocabulary before the special tokens: the 256 bytes plus merges. */
  vocabSize: number;
  /** Special tokens, given the ids after the vocabulary in this order. */
  specials?: readonly string[];
  /** A pair must occur at least this often to be merged. */
  minFrequency?: number;
  /** Called after each merge with the merges made so far. */
  onMerge?: (merges: number) => void;
}

interface Word {
  symbols: string[];
  count: number;
}

const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/**
 * Trains a byte-level BPE on `texts` (special-token strings in them are skipped) and returns it as a Hugging Face
 * tokenizer.json and tokenizer_config.json, which `HfTokenizer` (and Hugging Face tokenizers) load. Deterministic:
 * ties between equally frequent pairs go to the pair that sorts first.
 */
export function trainBpe(texts: Iterable<string>, options: BpeTrainOptions): Record<string, unknown> {
  const specials = options.specials ?? DEFAULT_SPECIAL_TOKENS;
  const minFrequency = options.minFrequency ?? 2;
  if (!Number.isInteger(options.vocabSize) || options.vocabSize < 256)
    throw new ModelError(
      'INVALID_ARGUMENT',
      `a BPE vocabulary holds the 256 bytes and merges, so its size must be an integer ≥ 256, got ${options.vocabSize}`,
    );
  const table = byteToUnicode();
  const utf8 = new TextEncoder();
  const split = new RegExp(BPE_SPLIT_PATTERN, 'gu');
  const splitter = specialSplitter(specials);
  const special = new Set(specials);

  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const part of splitter ? text.split(splitter) : [text]) {
      if (special.has(part)) continue;
      for (const piece of part.match(split) ?? []) {
        const mapped = Array.from(utf8.encode(piece), (b) => table[b]).join('');
        counts.set(mapped, (counts.get(mapped) ?? 0) + 1);
      }
    }
  }
  const words: Word[] = [...counts]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([w, count]) => ({ symbols: [...w], count }));

  // Pair frequencies and, for each pair, the words it occurs in; updated only where a merge changes a word.
  const pairCounts = new Map<string, number>();
  const pairWords = new Map<string, Set<number>>();
  const addPairs = (index: number, sign: 1 | -1) => {
    const { symbols, count } = words[index];
    for (let i = 0; i + 1 < symbols.length; i++) {
      const key = pairKey(symbols[i], symbols[i + 1]);
      pairCounts.set(key, (pairCounts.get(key) ?? 0) + sign * count);
      if (sign === 1) {
        let set = pairWords.get(key);
        if (!set) pairWords.set(key, (set = new Set()));
        set.add(index);
      }
    }
  };
  words.forEach((_, i) => addPairs(i, 1));

  const vocab = new Map<string, number>(table.map((ch, b) => [ch, b]));
  const merges: [string, string][] = [];
  while (vocab.size < options.vocabSize) {
    let best: string | undefined;
    let bestCount = minFrequency - 1;
    for (const [key, count] of pairCounts) {
      if (count > bestCount || (count === bestCount && best !== undefined && key < best)) {
        best = key;
        bestCount = count;
      }
    }
    if (best === undefined) break;
    const [a, b] = best.split('\u0000');
    const merged = a + b;
    merges.push([a, b]);
    if (!vocab.has(merged)) vocab.set(merged, vocab.size);
    for (const index of pairWords.get(best) ?? []) {
      const word = words[index];
      addPairs(index, -1);
      const next: string[] = [];
      for (let i = 0; i < word.symbols.length; i++) {
        if (i + 1 < word.symbols.length && word.symbols[i] === a && word.symbols[i + 1] === b) {
          next.push(merged);
          i++;
        } else next.push(word.symbols[i]);
      }
      word.symbols = next;
      addPairs(index, 1);
    }
    pairCounts.delete(best);
    pairWords.delete(best);
    options.onMerge?.(merges.length);
  }

  return byteLevelBpeFiles({
    kind: 'bpe',
    vocab: Object.fromEntries(vocab),
    merges: merges.map(([x, y]) => `${x} ${y}`),
    specials: new Map(specials.map((content, i) => [content, vocab.size + i])),
    splitPattern: BPE_SPLIT_PATTERN,
  });
}

/** `trainBpe`'s files, loaded. */
export function trainBpeTokenizer(texts: Iterable<string>, options: BpeTrainOptions): HfTokenizer {
  const files = trainBpe(texts, options);
  return new HfTokenizer(files['tokenizer.json'], files['tokenizer_config.json'] as Record<string, unknown>);
}
