// Original file: proto/inference.proto


export interface ReadSpanReply {
  /**
   * The chunk's text under the span, or "unknown".
   */
  'text'?: (string);
  /**
   * False when the reader chose the no-answer position ("unknown").
   */
  'answered'?: (boolean);
  /**
   * The span in the reader's prompt positions, end inclusive (both the no-answer position for "unknown").
   */
  'start'?: (number);
  'end'?: (number);
  /**
   * Log-probability of the chosen span under the reader.
   */
  'logprob'?: (number | string);
  'prompt_tokens'?: (number);
}

export interface ReadSpanReply__Output {
  /**
   * The chunk's text under the span, or "unknown".
   */
  'text'?: (string);
  /**
   * False when the reader chose the no-answer position ("unknown").
   */
  'answered'?: (boolean);
  /**
   * The span in the reader's prompt positions, end inclusive (both the no-answer position for "unknown").
   */
  'start'?: (number);
  'end'?: (number);
  /**
   * Log-probability of the chosen span under the reader.
   */
  'logprob'?: (number);
  'prompt_tokens'?: (number);
}
