import { FathomError } from '@fathom/contracts';

/** Error taxonomy of the SFT teacher: a code per failure and one place that words it. */
export type TeacherErrorCode =
  /** A mix string or object that cannot be used (unknown strategy, bad weight, robust share outside [0, 1]). */
  | 'INVALID_MIX'
  /** An SFT example rendered against a task with another id. */
  | 'TASK_MISMATCH'
  /** A strategy kept writing code past the turn limit (a bug in the strategy, never in the task). */
  | 'RUNAWAY_STRATEGY'
  /** A strategy passed llm() a chunk above the reader window: a child episode in rollouts, never a teacher leaf. */
  | 'OVERSIZED_SUBCALL'
  /** A repair turn's broken cell ran without failing, or failed only after it read or answered. */
  | 'REPAIR_DID_NOT_FAIL';

function describe(code: TeacherErrorCode, detail: string): string {
  switch (code) {
    case 'INVALID_MIX':
      return `invalid teacher mix: ${detail}`;
    case 'TASK_MISMATCH':
      return `SFT example does not belong to this task: ${detail}`;
    case 'RUNAWAY_STRATEGY':
      return `teacher strategy did not answer within its turn limit: ${detail}`;
    case 'OVERSIZED_SUBCALL':
      return `teacher llm() call refused: ${detail}`;
    case 'REPAIR_DID_NOT_FAIL':
      return `repair turn did not fail as planned: ${detail}`;
  }
}

export class TeacherError extends FathomError<TeacherErrorCode> {
  override readonly name = 'TeacherError';
  constructor(code: TeacherErrorCode, detail: string) {
    super(code, describe(code, detail));
  }
}
