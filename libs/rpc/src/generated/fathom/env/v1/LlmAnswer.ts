// Original file: proto/env.proto


export interface LlmAnswer {
  /**
   * What the guest's llm() returns.
   */
  'text'?: (string);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
}

export interface LlmAnswer__Output {
  /**
   * What the guest's llm() returns.
   */
  'text'?: (string);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
}
