import { FathomError } from '@fathom/contracts';

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

/** The one place that words a code: the summary the message starts with. */
function summaryOf(code: ModelErrorCode): string {
  switch (code) {
    case 'INVALID_CONFIG':
      return 'invalid model config';
    case 'UNKNOWN_ARCHITECTURE':
      return 'unknown architecture';
    case 'INVALID_TENSOR':
      return 'invalid tensor';
    case 'INVALID_SAFETENSORS':
      return 'invalid safetensors file';
    case 'INVALID_TOKENIZER':
      return 'invalid tokenizer';
    case 'INVALID_ARGUMENT':
      return 'invalid argument';
    case 'INVALID_ADAPTER':
      return 'invalid LoRA adapter';
  }
}

/** The one error type of `@fathom/model`; the message starts with the code's summary and names the culprit. */
export class ModelError extends FathomError<ModelErrorCode> {
  override readonly name = 'ModelError';
  constructor(code: ModelErrorCode, detail: string) {
    super(code, `${summaryOf(code)}: ${detail}`);
  }
}
