import { errorClass } from '@fathom/contracts';

/** Error taxonomy of libs/tasks: one code set, one class, one place that turns a code into a message prefix. */
export type TasksErrorCode =
  /** Generation options that cannot produce a dataset (bad mix, min > max, unknown variant...). */
  | 'INVALID_OPTIONS'
  /** A dataset file could not be opened, read or written. */
  | 'FILE_ACCESS'
  /** A dataset line failed to parse or to match the task schema. */
  | 'INVALID_TASK_LINE';

export class TasksError extends errorClass<TasksErrorCode>('TasksError', {
  INVALID_OPTIONS: 'invalid generation options',
  FILE_ACCESS: 'dataset file error',
  INVALID_TASK_LINE: 'invalid task line',
}) {}
