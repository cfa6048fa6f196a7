/** Misuse of the episode loop by its caller. What the policy or the sandbox does is a rollout status, never one of these. */
export enum RolloutErrorCode {
  /** An episode config that fails its schema. */
  InvalidConfig = 'INVALID_CONFIG',
  /** A policy whose tokenizer lacks the chat markers the prompt renderer uses. */
  InvalidTokenizer = 'INVALID_TOKENIZER',
  /** Asking to score or train on a trajectory that must not be (an `infra_error`). */
  NotScorable = 'NOT_SCORABLE',
  /** Bad arguments (group size, empty task list). */
  InvalidArgument = 'INVALID_ARGUMENT',
}

const summaries: Record<RolloutErrorCode, string> = {
  [RolloutErrorCode.InvalidConfig]: 'invalid episode config',
  [RolloutErrorCode.InvalidTokenizer]: 'invalid policy tokenizer',
  [RolloutErrorCode.NotScorable]: 'trajectory is not scorable',
  [RolloutErrorCode.InvalidArgument]: 'invalid argument',
};

/** The one error type the episode loop and the evaluation throw; the message starts with the code's summary. */
export class RolloutError extends Error {
  override name = 'RolloutError';
  constructor(
    readonly code: RolloutErrorCode,
    detail: string,
  ) {
    super(`${summaries[code]}: ${detail}`);
  }
}
