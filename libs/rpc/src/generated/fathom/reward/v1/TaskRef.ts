// Original file: proto/reward.proto


/**
 * What the reward needs from a task (libs/contracts TaskSchema).
 */
export interface TaskRef {
  'question'?: (string);
  'answer'?: (string);
  'aliases'?: (string)[];
  'context_tokens'?: (number);
}

/**
 * What the reward needs from a task (libs/contracts TaskSchema).
 */
export interface TaskRef__Output {
  'question'?: (string);
  'answer'?: (string);
  'aliases'?: (string)[];
  'context_tokens'?: (number);
}
