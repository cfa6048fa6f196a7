/** Error taxonomy of libs/tasks: one code enum, one class, one place that turns a code into a message prefix. */
export enum TasksErrorCode {
  /** Generation options that cannot produce a dataset (bad mix, min > max, unknown variant...). */
  InvalidOptions = 'INVALID_OPTIONS',
  /** A dataset file could not be opened, read or written. */
  FileAccess = 'FILE_ACCESS',
  /** A dataset line failed to parse or to match the task schema. */
  InvalidTaskLine = 'INVALID_TASK_LINE',
}

function describe(code: TasksErrorCode): string {
  switch (code) {
    case TasksErrorCode.InvalidOptions:
      return 'invalid generation options';
    case TasksErrorCode.FileAccess:
      return 'dataset file error';
    case TasksErrorCode.InvalidTaskLine:
      return 'invalid task line';
  }
}

export class TasksError extends Error {
  constructor(
    readonly code: TasksErrorCode,
    detail: string,
  ) {
    super(`${describe(code)}: ${detail}`);
    this.name = 'TasksError';
  }
}
