import { FathomError } from '@fathom/contracts';

/** Every failure this library raises carries one of these codes; `TensorError` is the only error type thrown. */
export type TensorErrorCode =
  /** Shapes that cannot be broadcast, multiplied, reshaped or concatenated. */
  | 'SHAPE_MISMATCH'
  /** Operands of different dtypes, or a dtype an op does not accept. */
  | 'DTYPE_MISMATCH'
  /** An op on the path from a `wrt` tensor to the loss has no entry in the gradient table. */
  | 'NO_GRADIENT_RULE'
  /** The gradient rule exists but cannot handle this use (e.g. a non-scalar loss, an integer tensor). */
  | 'NOT_DIFFERENTIABLE'
  /** Tensors from two different graphs were combined, or an invalid argument was given to a builder. */
  | 'INVALID_GRAPH'
  /** A feed is missing, has the wrong typed-array kind, or its length does not match its dims. */
  | 'INVALID_FEED'
  /** onnxruntime failed to create a session or to run one. */
  | 'RUNTIME_FAILURE'
  /** Optimizer state that does not match the parameters it is loaded into. */
  | 'INVALID_STATE';

/** The one place that words a code: a readable summary the message starts with. */
function summaryOf(code: TensorErrorCode): string {
  switch (code) {
    case 'SHAPE_MISMATCH':
      return 'shape mismatch';
    case 'DTYPE_MISMATCH':
      return 'dtype mismatch';
    case 'NO_GRADIENT_RULE':
      return 'no gradient rule';
    case 'NOT_DIFFERENTIABLE':
      return 'not differentiable';
    case 'INVALID_GRAPH':
      return 'invalid graph';
    case 'INVALID_FEED':
      return 'invalid feed';
    case 'RUNTIME_FAILURE':
      return 'onnxruntime failure';
    case 'INVALID_STATE':
      return 'invalid optimizer state';
  }
}

/** The one error type of `@fathom/tensor`; the message starts with a readable summary of the code. */
export class TensorError extends FathomError<TensorErrorCode> {
  override readonly name = 'TensorError';
  constructor(code: TensorErrorCode, detail: string, options?: { cause?: unknown }) {
    super(code, `${summaryOf(code)}: ${detail}`, {}, options);
  }
}
