/** Why an Inference call was refused; inference.server.ts maps each code to one gRPC status. */
export enum InferenceErrorCode {
  /** A request field out of range (empty prompt, max_tokens 0, a prompt longer than the context, …). */
  InvalidArgument = 'INVALID_ARGUMENT',
  /** The checkpoint that answers is missing or cannot be loaded; the worker keeps running without it. */
  ModelUnavailable = 'MODEL_UNAVAILABLE',
  /** A span read (ReadSpan) of a checkpoint with neither a span head nor a paired reader. */
  NoSpanReader = 'NO_SPAN_READER',
  /** The caller gave up (deadline or cancel) before its turn came. */
  Cancelled = 'CANCELLED',
}

/** The one error type of the inference module; the message names the field or folder at fault. */
export class InferenceError extends Error {
  constructor(
    readonly code: InferenceErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'InferenceError';
  }
}
