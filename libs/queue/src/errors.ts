import { FathomError } from '@fathom/contracts';

/** What can go wrong in the typed job layer. */
export type QueueErrorCode = 'INVALID_PAYLOAD' | 'CONFLICTING_DUPLICATE' | 'HANDLER_MISMATCH';

/** The one error type of libs/queue; `details` carries the structured part (issues, job names). */
export class QueueError extends FathomError<QueueErrorCode> {
  override readonly name = 'QueueError';
  constructor(
    code: QueueErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(code, `${queueErrorMessage(code)}: ${message}`);
  }
}

/** The one place that says what each code means. */
export function queueErrorMessage(code: QueueErrorCode): string {
  switch (code) {
    case 'INVALID_PAYLOAD':
      return 'job payload does not match its schema';
    case 'CONFLICTING_DUPLICATE':
      return 'one job id was given two different payloads';
    case 'HANDLER_MISMATCH':
      return 'every consumed job name needs exactly one handler';
  }
}
