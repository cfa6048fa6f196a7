/**
 * What the sampler needs from a model: run a prompt once, then extend several copies of it one token at a
 * time. Implemented by the ONNX KV-cache decoder (`KvCacheDecoder`) and by the float64 reference.
 */
export interface DecodeBackend {
  readonly vocabSize: number;
  /** Longest sequence (prompt + generated) a session can hold. */
  readonly maxLength: number;
  /**
   * Runs `prompt` once (one prefill) and returns a session holding `rows` copies of it, with the logits of the
   * prompt's last position (vocab).
   */
  start(prompt: readonly number[], rows: number): Promise<{ session: DecodeSession; logits: Float32Array }>;
}

export interface DecodeSession {
  /** Appends `tokens[r]` to row r (one per row) and returns the next logits, (rows, vocab) row-major. */
  step(tokens: readonly number[]): Promise<Float32Array>;
  /** Releases the session's buffers. */
  close(): void;
}
