/** Characters per estimated token. See docs/DATASETS.md ("Context tokens"). */
export const CHARS_PER_TOKEN = 4;

/**
 * FATHOM's one token estimator: ceil(UTF-16 length / 4). It is O(1), needs no tokenizer, and is close to what BPE
 * tokenizers give for the generator's plain English prose (about 4 characters per token). Everything that reports
 * "context tokens" — the generator's length targets, `context_tokens` in dataset files, `fathom data stats`,
 * `fathom data validate` — uses this function, so numbers agree across tools.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
