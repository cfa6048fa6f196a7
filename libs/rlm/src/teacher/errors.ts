/** Error taxonomy of the SFT teacher: a code per failure and one place that words it. */
export enum TeacherErrorCode {
  /** A mix string or object that cannot be used (unknown strategy, bad weight, robust share outside [0, 1]). */
  INVALID_MIX = 'INVALID_MIX',
  /** An SFT example rendered against a task with another id. */
  TASK_MISMATCH = 'TASK_MISMATCH',
  /** A strategy kept writing code past the turn limit (a bug in the strategy, never in the task). */
  RUNAWAY_STRATEGY = 'RUNAWAY_STRATEGY',
}

function describe(code: TeacherErrorCode, detail: string): string {
  switch (code) {
    case TeacherErrorCode.INVALID_MIX:
      return `invalid teacher mix: ${detail}`;
    case TeacherErrorCode.TASK_MISMATCH:
      return `SFT example does not belong to this task: ${detail}`;
    case TeacherErrorCode.RUNAWAY_STRATEGY:
      return `teacher strategy did not answer within its turn limit: ${detail}`;
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
