import { errorClass } from '@fathom/contracts';

/** What can go wrong in the typed job layer. */
export type QueueErrorCode = 'INVALID_PAYLOAD' | 'CONFLICTING_DUPLICATE' | 'HANDLER_MISMATCH';

/** The one place that says what each code means: the summary a QueueError's message starts with. */
const QUEUE_ERROR_SUMMARIES: Readonly<Record<QueueErrorCode, string>> = {
  INVALID_PAYLOAD: 'job payload does not match its schema',
  CONFLICTING_DUPLICATE: 'one job id was given two different payloads',
  HANDLER_MISMATCH: 'every consumed job name needs exactly one handler',
};

/** The one error type of libs/queue; `details` carries the structured part (issues, job names). */
export class QueueError extends errorClass<QueueErrorCode>('QueueError', QUEUE_ERROR_SUMMARIES) {
  constructor(
    code: QueueErrorCode,
    detail: string,
    readonly details?: unknown,
  ) {
    super(code, detail);
  }
}

/** The summary a QueueError with this code starts with. */
export function queueErrorMessage(code: QueueErrorCode): string {
  return QUEUE_ERROR_SUMMARIES[code];
}
