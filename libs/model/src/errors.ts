import { errorClass } from '@fathom/contracts';

/** Every failure this library raises carries one of these codes; `ModelError` is the only error type it throws. */
export type ModelErrorCode =
  /** A config.json field that is missing, of the wrong type, or inconsistent with another field. */
  | 'INVALID_CONFIG'
  /** `architectures` names a model family this library does not implement. */
  | 'UNKNOWN_ARCHITECTURE'
  /** A checkpoint tensor that is missing, unexpected, or of the wrong shape or dtype. */
  | 'INVALID_TENSOR'
  /** A safetensors file whose header or byte layout is malformed. */
  | 'INVALID_SAFETENSORS'
  /** A tokenizer file that cannot be loaded, or a token id outside the vocabulary. */
  | 'INVALID_TOKENIZER'
  /** Bad arguments to a graph, decoder or sampler call (token ids, batch sizes, options). */
  | 'INVALID_ARGUMENT'
  /** A LoRA adapter config or tensor that does not fit the base model. */
  | 'INVALID_ADAPTER';

/** The one error type of `@fathom/model`; the message starts with the code's summary and names the culprit. */
export class ModelError extends errorClass<ModelErrorCode>('ModelError', {
  INVALID_CONFIG: 'invalid model config',
  UNKNOWN_ARCHITECTURE: 'unknown architecture',
  INVALID_TENSOR: 'invalid tensor',
  INVALID_SAFETENSORS: 'invalid safetensors file',
  INVALID_TOKENIZER: 'invalid tokenizer',
  INVALID_ARGUMENT: 'invalid argument',
  INVALID_ADAPTER: 'invalid LoRA adapter',
}) {}
