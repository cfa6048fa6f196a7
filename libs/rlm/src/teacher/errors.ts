/** Error taxonomy of the SFT teacher: a code per failure and one place that words it. */
export enum TeacherErrorCode {
  /** A mix string or object that cannot be used (unknown strategy, bad weight, robust share outside [0, 1]). */
  INVALID_MIX = 'INVALID_MIX',
  /** An SFT example rendered against a task with another id. */
  TASK_MISMATCH = 'TASK_MISMATCH',
  /** A strategy kept writing code past the turn limit (a bug in the strategy, never in the task). */
  RUNAWAY_STRATEGY = 'RUNAWAY_STRATEGY',
  /** A strategy passed llm() a chunk above the reader window: a child episode in rollouts, never a teacher leaf. */
  OVERSIZED_SUBCALL = 'OVERSIZED_SUBCALL',
  /** A repair turn's broken cell ran without failing, or failed only after it read or answered. */
  REPAIR_DID_NOT_FAIL = 'REPAIR_DID_NOT_FAIL',
}

function describe(code: TeacherErrorCode, detail: string): string {
  switch (code) {
    case TeacherErrorCode.INVALID_MIX:
      return `invalid teacher mix: ${detail}`;
    case TeacherErrorCode.TASK_MISMATCH:
      return `SFT example does not belong to this task: ${detail}`;
    case TeacherErrorCode.RUNAWAY_STRATEGY:
      return `teacher strategy did not answer within its turn limit: ${detail}`;
    case TeacherErrorCode.OVERSIZED_SUBCALL:
      return `teacher llm() call refused: ${detail}`;
    case TeacherErrorCode.REPAIR_DID_NOT_FAIL:
      return `repair turn did not fail as planned: ${detail}`;
  }
}

export class TeacherError extends Error {
  constructor(
    readonly code: TeacherErrorCode,
    detail: string,
  ) {
    super(describe(code, detail));
    this.name = 'TeacherError';
  }
}
