/** Every failure this library raises carries one of these codes; `TensorError` is the only error type thrown. */
export enum TensorErrorCode {
  /** Shapes that cannot be broadcast, multiplied, reshaped or concatenated. */
  ShapeMismatch = 'SHAPE_MISMATCH',
  /** Operands of different dtypes, or a dtype an op does not accept. */
  DtypeMismatch = 'DTYPE_MISMATCH',
  /** An op on the path from a `wrt` tensor to the loss has no entry in the gradient table. */
  NoGradientRule = 'NO_GRADIENT_RULE',
  /** The gradient rule exists but cannot handle this use (e.g. a non-scalar loss, an integer tensor). */
  NotDifferentiable = 'NOT_DIFFERENTIABLE',
  /** Tensors from two different graphs were combined, or an invalid argument was given to a builder. */
  InvalidGraph = 'INVALID_GRAPH',
  /** A feed is missing, has the wrong typed-array kind, or its length does not match its dims. */
  InvalidFeed = 'INVALID_FEED',
  /** onnxruntime failed to create a session or to run one. */
  RuntimeFailure = 'RUNTIME_FAILURE',
  /** Optimizer state that does not match the parameters it is loaded into. */
  InvalidState = 'INVALID_STATE',
}

const summaries: Record<TensorErrorCode, string> = {
  [TensorErrorCode.ShapeMismatch]: 'shape mismatch',
  [TensorErrorCode.DtypeMismatch]: 'dtype mismatch',
  [TensorErrorCode.NoGradientRule]: 'no gradient rule',
  [TensorErrorCode.NotDifferentiable]: 'not differentiable',
  [TensorErrorCode.InvalidGraph]: 'invalid graph',
  [TensorErrorCode.InvalidFeed]: 'invalid feed',
  [TensorErrorCode.RuntimeFailure]: 'onnxruntime failure',
  [TensorErrorCode.InvalidState]: 'invalid optimizer state',
};

/** The one error type of `@fathom/tensor`; the message starts with a readable summary of the code. */
export class TensorError extends Error {
  constructor(
    readonly code: TensorErrorCode,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`${summaries[code]}: ${detail}`, options);
    this.name = 'TensorError';
  }
}
