// Original file: proto/reward.proto


export interface Turn {
  /**
   * The model's text for the turn, unmodified.
   */
  'completion'?: (string);
}

export interface Turn__Output {
  /**
   * The model's text for the turn, unmodified.
   */
  'completion'?: (string);
}
