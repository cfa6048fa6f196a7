// Original file: proto/reward.proto


export interface Diagnostics {
  'answer'?: (string);
  /**
   * "tag" | "repl" | "last_line" | "none"
   */
  'answer_source'?: (string);
  'tag_count'?: (number);
  /**
   * "no_answer" | "empty" | "too_long" | "copied_question", unset when the answer was graded as given.
   */
  'rejection'?: (string);
  'matched'?: (string);
  /**
   * "numeric" | "text"
   */
  'match_kind'?: (string);
  'llm_calls'?: (number);
  /**
   * "executed" | "static"
   */
  'call_count_source'?: (string);
  'unparsed_code_blocks'?: (number);
  'tokens_spent'?: (number | string);
  'token_budget'?: (number | string);
  'recursion_efficiency_raw'?: (number | string);
  'uncapped_total'?: (number | string);
  'capped'?: (boolean);
  '_answer'?: "answer";
  '_rejection'?: "rejection";
  '_matched'?: "matched";
  '_match_kind'?: "match_kind";
}

export interface Diagnostics__Output {
  'answer'?: (string);
  /**
   * "tag" | "repl" | "last_line" | "none"
   */
  'answer_source'?: (string);
  'tag_count'?: (number);
  /**
   * "no_answer" | "empty" | "too_long" | "copied_question", unset when the answer was graded as given.
   */
  'rejection'?: (string);
  'matched'?: (string);
  /**
   * "numeric" | "text"
   */
  'match_kind'?: (string);
  'llm_calls'?: (number);
  /**
   * "executed" | "static"
   */
  'call_count_source'?: (string);
  'unparsed_code_blocks'?: (number);
  'tokens_spent'?: (number);
  'token_budget'?: (number);
  'recursion_efficiency_raw'?: (number);
  'uncapped_total'?: (number);
  'capped'?: (boolean);
  '_answer'?: "answer";
  '_rejection'?: "rejection";
  '_matched'?: "matched";
  '_match_kind'?: "match_kind";
}
