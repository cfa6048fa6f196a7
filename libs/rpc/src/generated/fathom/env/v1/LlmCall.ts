// Original file: proto/env.proto


/**
 * A guest llm(prompt, chunk) call of the session's episode, for the client to answer.
 */
export interface LlmCall {
  'request_id'?: (string);
  'episode_id'?: (string);
  /**
   * 1 for the episode's own llm().
   */
  'depth'?: (number);
  'prompt'?: (string);
  'chunk'?: (string);
  /**
   * Sub-call tokens the episode has left.
   */
  'token_budget'?: (number);
  '_chunk'?: "chunk";
}

/**
 * A guest llm(prompt, chunk) call of the session's episode, for the client to answer.
 */
export interface LlmCall__Output {
  'request_id'?: (string);
  'episode_id'?: (string);
  /**
   * 1 for the episode's own llm().
   */
  'depth'?: (number);
  'prompt'?: (string);
  'chunk'?: (string);
  /**
   * Sub-call tokens the episode has left.
   */
  'token_budget'?: (number);
  '_chunk'?: "chunk";
}
