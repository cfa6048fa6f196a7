import { FathomError } from '@fathom/contracts';

/** Why an Inference call was refused; inference.server.ts maps each code to one gRPC status. */
export type InferenceErrorCode =
  /** A request field out of range (empty prompt, max_tokens 0, a prompt longer than the context, …). */
  | 'INVALID_ARGUMENT'
  /** The checkpoint that answers is missing or cannot be loaded; the worker keeps running without it. */
  | 'MODEL_UNAVAILABLE'
  /** A span read (ReadSpan) of a checkpoint with neither a span head nor a paired reader. */
  | 'NO_SPAN_READER'
  /** The caller gave up (deadline or cancel) before its turn came. */
  | 'CANCELLED';

/** The one error type of the inference module; the message names the field or folder at fault. */
export class InferenceError extends FathomError<InferenceErrorCode> {
  override readonly name = 'InferenceError';
}
