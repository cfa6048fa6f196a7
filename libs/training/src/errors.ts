/** Error taxonomy of `@fathom/training`: a code per failure and one place that words it. */
export enum TrainingErrorCode {
  /** An SFT config that fails its schema or is inconsistent with the model (a field is named). */
  INVALID_CONFIG = 'INVALID_CONFIG',
  /** A data file line that cannot be used (bad JSON, schema violation, unknown task id). */
  INVALID_DATA = 'INVALID_DATA',
  /** Nothing left to train on (or to evaluate on) after dropping examples. */
  NO_DATA = 'NO_DATA',
  /** A token sequence whose ids and mask disagree, or whose ids fall outside the vocabulary. */
  INVALID_SEQUENCE = 'INVALID_SEQUENCE',
  /** The SFT examples and the rollout prompts of the same task render differently. */
  PROMPT_DRIFT = 'PROMPT_DRIFT',
  /** `--resume` found no complete checkpoint, or one written by a different config or data set. */
  RESUME_MISMATCH = 'RESUME_MISMATCH',
  /** A fresh run pointed at a run folder that already holds checkpoints (use `--resume`, or another folder). */
  RUN_EXISTS = 'RUN_EXISTS',
  /** A checkpoint folder whose training state is unreadable or inconsistent. */
  INVALID_CHECKPOINT = 'INVALID_CHECKPOINT',
  /** A step whose loss or gradient norm is not finite: the run stops instead of writing NaN weights. */
  DIVERGED = 'DIVERGED',
}

function describe(code: TrainingErrorCode, detail: string): string {
  switch (code) {
    case TrainingErrorCode.INVALID_CONFIG:
      return `invalid SFT config: ${detail}`;
    case TrainingErrorCode.INVALID_DATA:
      return `invalid SFT data: ${detail}`;
    case TrainingErrorCode.NO_DATA:
      return `no usable SFT data: ${detail}`;
    case TrainingErrorCode.INVALID_SEQUENCE:
      return `invalid token sequence: ${detail}`;
    case TrainingErrorCode.PROMPT_DRIFT:
      return `prompt preflight failed: ${detail}`;
    case TrainingErrorCode.RESUME_MISMATCH:
      return `cannot resume: ${detail}`;
    case TrainingErrorCode.RUN_EXISTS:
      return `run folder in use: ${detail}`;
    case TrainingErrorCode.INVALID_CHECKPOINT:
      return `invalid training checkpoint: ${detail}`;
    case TrainingErrorCode.DIVERGED:
      return `training diverged: ${detail}`;
  }
}

/** The one error type of `@fathom/training`; the message starts with the code's summary and names the culprit. */
export class TrainingError extends Error {
  constructor(
    readonly code: TrainingErrorCode,
    detail: string,
  ) {
    super(describe(code, detail));
    this.name = 'TrainingError';
  }
}
