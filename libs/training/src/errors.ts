import { FathomError, type ErrorContext } from '@fathom/contracts';

/** The trainer an error comes from; the messages of config and data errors name it ("invalid GRPO config: …"). */
export type Trainer = 'SFT' | 'GRPO';

/** Error taxonomy of `@fathom/training`, one code set for the SFT and the GRPO trainer. */
export type TrainingErrorCode =
  /** A config that fails its schema or does not fit the model (the field is named). */
  | 'INVALID_CONFIG'
  /** A data file line that cannot be used (bad JSON, schema violation, unknown task id). */
  | 'INVALID_DATA'
  /** Nothing left to train on (or to evaluate on): no examples after dropping, an empty or unreadable tasks file. */
  | 'NO_DATA'
  /** A token sequence whose ids and mask disagree, or whose ids fall outside the vocabulary. */
  | 'INVALID_SEQUENCE'
  /** The SFT rendering and the rollout prompt of the same task differ (the diff is in the message). */
  | 'PROMPT_DRIFT'
  /** `--resume` found no complete checkpoint, or one written by another config, data set or task file. */
  | 'RESUME_MISMATCH'
  /** A fresh run pointed at a run folder that already holds checkpoints (use `--resume`, or another folder). */
  | 'RUN_EXISTS'
  /** A checkpoint folder whose training state is unreadable or inconsistent. */
  | 'INVALID_CHECKPOINT'
  /** A step whose loss or gradient norm is not finite: the run stops instead of writing NaN weights. */
  | 'DIVERGED'
  /** GRPO `replay` cannot rebuild the state before the step (no stored rollouts, no checkpoint at or before it). */
  | 'REPLAY_UNAVAILABLE';

/** Where a training error happened: the trainer (when the thrower is one, not a module both share) and the unit of work. */
export interface TrainingErrorContext extends ErrorContext {
  readonly trainer?: Trainer;
}

/** The one place that words a code; a shared module's config or data error, with no trainer, says "training". */
function describe(code: TrainingErrorCode, trainer: Trainer | undefined, detail: string): string {
  const subject = trainer ?? 'training';
  switch (code) {
    case 'INVALID_CONFIG':
      return `invalid ${subject} config: ${detail}`;
    case 'INVALID_DATA':
      return `invalid ${subject} data: ${detail}`;
    case 'NO_DATA':
      return `no usable ${subject} data: ${detail}`;
    case 'INVALID_SEQUENCE':
      return `invalid token sequence: ${detail}`;
    case 'PROMPT_DRIFT':
      return `prompt preflight failed: ${detail}`;
    case 'RESUME_MISMATCH':
      return `cannot resume: ${detail}`;
    case 'RUN_EXISTS':
      return `run folder in use: ${detail}`;
    case 'INVALID_CHECKPOINT':
      return `invalid training checkpoint: ${detail}`;
    case 'DIVERGED':
      return `training diverged: ${detail}`;
    case 'REPLAY_UNAVAILABLE':
      return `cannot replay: ${detail}`;
  }
}

/** The one error type of `@fathom/training`; the message starts with the code's summary and names the culprit. */
export class TrainingError extends FathomError<TrainingErrorCode> {
  override readonly name = 'TrainingError';
  readonly trainer: Trainer | undefined;
  constructor(code: TrainingErrorCode, detail: string, { trainer, ...context }: TrainingErrorContext = {}) {
    super(code, describe(code, trainer, detail), context);
    this.trainer = trainer;
  }
}
