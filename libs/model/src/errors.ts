/** Every failure this library raises carries one of these codes; `ModelError` is the only error type it throws. */
export enum ModelErrorCode {
  /** A config.json field that is missing, of the wrong type, or inconsistent with another field. */
  InvalidConfig = 'INVALID_CONFIG',
  /** `architectures` names a model family this library does not implement. */
  UnknownArchitecture = 'UNKNOWN_ARCHITECTURE',
  /** A checkpoint tensor that is missing, unexpected, or of the wrong shape or dtype. */
  InvalidTensor = 'INVALID_TENSOR',
  /** A safetensors file whose header or byte layout is malformed. */
  InvalidSafetensors = 'INVALID_SAFETENSORS',
  /** A tokenizer file that cannot be loaded, or a token id outside the vocabulary. */
  InvalidTokenizer = 'INVALID_TOKENIZER',
  /** Bad arguments to a graph, decoder or sampler call (token ids, batch sizes, options). */
  InvalidArgument = 'INVALID_ARGUMENT',
  /** A LoRA adapter config or tensor that does not fit the base model. */
  InvalidAdapter = 'INVALID_ADAPTER',
}

const summaries: Record<ModelErrorCode, string> = {
  [ModelErrorCode.InvalidConfig]: 'invalid model config',
  [ModelErrorCode.UnknownArchitecture]: 'unknown architecture',
  [ModelErrorCode.InvalidTensor]: 'invalid tensor',
  [ModelErrorCode.InvalidSafetensors]: 'invalid safetensors file',
  [ModelErrorCode.InvalidTokenizer]: 'invalid tokenizer',
  [ModelErrorCode.InvalidArgument]: 'invalid argument',
  [ModelErrorCode.InvalidAdapter]: 'invalid LoRA adapter',
};

/** The one error type of `@fathom/model`; the message starts with the code's summary and names the culprit. */
export class ModelError extends Error {
  constructor(
    readonly code: ModelErrorCode,
    detail: string,
  ) {
    super(`${summaries[code]}: ${detail}`);
    this.name = 'ModelError';
  }
}
