/** Error taxonomy of the GRPO loop (`fathom train`): a code per failure and one place that words it. */
export enum GrpoTrainErrorCode {
  /** A config that fails its schema or does not fit the model (the field is named). */
  INVALID_CONFIG = 'INVALID_CONFIG',
  /** The tasks file is empty or unreadable. */
  NO_DATA = 'NO_DATA',
  /** The SFT rendering and the rollout prompt of the same task differ (the diff is in the message). */
  PROMPT_DRIFT = 'PROMPT_DRIFT',
  /** `--resume` found no complete checkpoint, or one written by another config or task file. */
  RESUME_MISMATCH = 'RESUME_MISMATCH',
  /** A loss or gradient norm that is not finite: the run stops before writing NaN weights. */
  DIVERGED = 'DIVERGED',
  /** `replay` cannot rebuild the state before the step (no stored rollouts, no checkpoint at or before it). */
  REPLAY_UNAVAILABLE = 'REPLAY_UNAVAILABLE',
}

function describe(code: GrpoTrainErrorCode, detail: string): string {
  switch (code) {
    case GrpoTrainErrorCode.INVALID_CONFIG:
      return `invalid GRPO config: ${detail}`;
    case GrpoTrainErrorCode.NO_DATA:
      return `no GRPO tasks: ${detail}`;
    case GrpoTrainErrorCode.PROMPT_DRIFT:
      return `prompt preflight failed: ${detail}`;
    case GrpoTrainErrorCode.RESUME_MISMATCH:
      return `cannot resume: ${detail}`;
    case GrpoTrainErrorCode.DIVERGED:
      return `training diverged: ${detail}`;
    case GrpoTrainErrorCode.REPLAY_UNAVAILABLE:
      return `cannot replay: ${detail}`;
  }
}

/** The one error type of the GRPO loop; the message starts with the code's summary and names the culprit. */
export class GrpoTrainError extends Error {
  constructor(
    readonly code: GrpoTrainErrorCode,
    detail: string,
  ) {
    super(describe(code, detail));
    this.name = 'GrpoTrainError';
  }
}
