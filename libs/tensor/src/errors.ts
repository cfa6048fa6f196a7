import { errorClass } from '@fathom/contracts';

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

/** The one error type of `@fathom/tensor`; the message starts with a readable summary of the code. */
export class TensorError extends errorClass<TensorErrorCode>('TensorError', {
  SHAPE_MISMATCH: 'shape mismatch',
  DTYPE_MISMATCH: 'dtype mismatch',
  NO_GRADIENT_RULE: 'no gradient rule',
  NOT_DIFFERENTIABLE: 'not differentiable',
  INVALID_GRAPH: 'invalid graph',
  INVALID_FEED: 'invalid feed',
  RUNTIME_FAILURE: 'onnxruntime failure',
  INVALID_STATE: 'invalid optimizer state',
}) {}
