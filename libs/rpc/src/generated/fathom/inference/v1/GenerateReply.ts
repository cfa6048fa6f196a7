// Original file: proto/inference.proto


export interface GenerateReply {
  'text'?: (string);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  /**
   * "stop", "length" or "error".
   */
  'finish_reason'?: (string);
}

export interface GenerateReply__Output {
  'text'?: (string);
  'prompt_tokens'?: (number);
  'completion_tokens'?: (number);
  /**
   * "stop", "length" or "error".
   */
  'finish_reason'?: (string);
}
