import { FathomError } from '@fathom/contracts';

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

/** The one place that words a code: the summary the message starts with. */
function summaryOf(code: RolloutErrorCode): string {
  switch (code) {
    case 'INVALID_CONFIG':
      return 'invalid episode config';
    case 'INVALID_TOKENIZER':
      return 'invalid policy tokenizer';
    case 'NOT_SCORABLE':
      return 'trajectory is not scorable';
    case 'INVALID_ARGUMENT':
      return 'invalid argument';
  }
}

/** The one error type the episode loop and the evaluation throw; the message starts with the code's summary. */
export class RolloutError extends FathomError<RolloutErrorCode> {
  override readonly name = 'RolloutError';
  constructor(code: RolloutErrorCode, detail: string) {
    super(code, `${summaryOf(code)}: ${detail}`);
  }
}
