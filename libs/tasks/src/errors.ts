import { FathomError } from '@fathom/contracts';

/** Error taxonomy of libs/tasks: one code set, one class, one place that turns a code into a message prefix. */
export type TasksErrorCode =
  /** Generation options that cannot produce a dataset (bad mix, min > max, unknown variant...). */
  | 'INVALID_OPTIONS'
  /** A dataset file could not be opened, read or written. */
  | 'FILE_ACCESS'
  /** A dataset line failed to parse or to match the task schema. */
  | 'INVALID_TASK_LINE';

function describe(code: TasksErrorCode): string {
  switch (code) {
    case 'INVALID_OPTIONS':
      return 'invalid generation options';
    case 'FILE_ACCESS':
      return 'dataset file error';
    case 'INVALID_TASK_LINE':
      return 'invalid task line';
  }
}

export class TasksError extends FathomError<TasksErrorCode> {
  override readonly name = 'TasksError';
  constructor(code: TasksErrorCode, detail: string) {
    super(code, `${describe(code)}: ${detail}`);
  }
}
