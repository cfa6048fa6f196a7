import { errorClass } from '@fathom/contracts';

/** Misuse of the episode loop by its caller. What the policy or the sandbox does is a rollout status, never one of these. */
export type RolloutErrorCode =
  /** An episode config that fails its schema. */
  | 'INVALID_CONFIG'
  /** A policy whose tokenizer lacks the chat markers the prompt renderer uses. */
  | 'INVALID_TOKENIZER'
  /** Asking to score or train on a trajectory that must not be (an `infra_error`). */
  | 'NOT_SCORABLE'
  /** Bad arguments (group size, empty task list). */
  | 'INVALID_ARGUMENT';

/** The one error type the episode loop and the evaluation throw; the message starts with the code's summary. */
export class RolloutError extends errorClass<RolloutErrorCode>('RolloutError', {
  INVALID_CONFIG: 'invalid episode config',
  INVALID_TOKENIZER: 'invalid policy tokenizer',
  NOT_SCORABLE: 'trajectory is not scorable',
  INVALID_ARGUMENT: 'invalid argument',
}) {}
