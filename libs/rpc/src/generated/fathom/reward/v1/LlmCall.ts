// Original file: proto/reward.proto


export interface LlmCall {
  'depth'?: (number);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  'chunk_chars'?: (number);
  '_chunk_chars'?: "chunk_chars";
}

export interface LlmCall__Output {
  'depth'?: (number);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  'chunk_chars'?: (number);
  '_chunk_chars'?: "chunk_chars";
}
