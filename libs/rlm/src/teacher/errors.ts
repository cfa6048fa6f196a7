import { errorClass } from '@fathom/contracts';

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

export class TeacherError extends errorClass<TeacherErrorCode>('TeacherError', {
  INVALID_MIX: 'invalid teacher mix',
  TASK_MISMATCH: 'SFT example does not belong to this task',
  RUNAWAY_STRATEGY: 'teacher strategy did not answer within its turn limit',
  OVERSIZED_SUBCALL: 'teacher llm() call refused',
  REPAIR_DID_NOT_FAIL: 'repair turn did not fail as planned',
}) {}
