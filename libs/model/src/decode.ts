/**
 * What the sampler needs from a model: run prompts once, then extend copies of them one token at a time. Implemented
 * by the ONNX KV-cache decoder (`KvCacheDecoder`) and by the float64 reference.
 */
export interface DecodeBackend {
  readonly vocabSize: number;
  /** Longest sequence (prompt + generated) a session can hold. */
  readonly maxLength: number;
  /**
   * Runs each prompt once (one prefill each, whatever its number of rows) and returns one session holding
   * `prompts[i].rows` copies of prompt i, prompt by prompt, with the logits of each prompt's last position
   * (prompts, vocab). Prompts may differ in length: each row keeps its own position.
   */
  start(prompts: readonly DecodePrompt[]): Promise<{ session: DecodeSession; logits: Float32Array }>;
}

/** A prompt to decode from, and how many rows (completions) continue it. */
export interface DecodePrompt {
  tokens: readonly number[];
  rows: number;
  /**
   * This prompt continues an earlier one (an episode's next turn): start from the longest prefix the backend kept
   * of an earlier `reuse` prompt's rows, and keep this prompt's rows, once dropped, for later prompts. A hint: a
   * backend without a cache ignores it, and the logits agree either way up to float rounding.
   */
  reuse?: boolean;
}

export interface DecodeSession {
  /** Rows now in the session. */
  readonly rows: number;
  /** Appends `tokens[r]` to row r (one per row) and returns the next logits, (rows, vocab) row-major. */
  step(tokens: readonly number[]): Promise<Float32Array>;
  /** Keeps only these rows, in this order (row i becomes the i-th listed); the others are dropped. */
  retain(rows: readonly number[]): void;
  /** Releases the session's buffers. */
  close(): void;
}
