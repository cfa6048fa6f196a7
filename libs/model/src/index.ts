export { ModelError, type ModelErrorCode } from './errors';
export {
  ARCHITECTURES,
  parseHfConfig,
  toHfConfig,
  ropeInverseFrequencies,
  type Architecture,
  type ModelConfig,
  type Llama3RopeScaling,
  type ReaderHeads,
  type WordVectors,
} from './config';
export {
  WORD_LIST_FILE,
  WORD_TABLE_FILE,
  formatWordList,
  parseWordList,
  readWordVectorSet,
  wordVectorIndex,
  writeWordVectorSet,
  type WordVectorSet,
} from './word-vectors';
export {
  LINEAR_MODULES,
  checkParams,
  countParams,
  initParams,
  linearPrefix,
  linearShape,
  numel,
  paramSpecs,
  readerSpecs,
  MATCH_EMBEDDING,
  WORD_FEATURE_EMBEDDING,
  WORD_TAG_EMBEDDING,
  WORD_VECTORS,
  WORD_VECTOR_PROJ,
  SPAN_HEAD,
  type LinearModule,
  type ParamMap,
  type ParamSpec,
} from './params';
export {
  parseSafetensors,
  serializeSafetensors,
  halfToFloat,
  floatToHalf,
  type NamedTensor,
  type SafetensorsDtype,
  type SafetensorsFile,
} from './safetensors';
export type { Tokenizer } from './tokenizer/tokenizer';
export { ByteTokenizer, DEFAULT_SPECIAL_TOKENS, byteToUnicode } from './tokenizer/byte.tokenizer';
export { HfTokenizer } from './tokenizer/hf.tokenizer';
export { HashedWordTokenizer } from './tokenizer/hashed-word.tokenizer';
export { BPE_SPLIT_PATTERN, trainBpe, trainBpeTokenizer, type BpeTrainOptions } from './tokenizer/bpe.trainer';
export { referenceForward, referenceSpanLogits, ReferenceDecodeBackend } from './reference';
export type { DecodeBackend, DecodePrompt, DecodeSession } from './decode';
export {
  generate,
  generateBatch,
  sampleToken,
  type BatchSamplingOptions,
  type Completion,
  type FinishReason,
  type GenerationRequest,
  type SamplingOptions,
} from './sampler';
export { SpanConstraint } from './span';
export { loadCheckpoint, loadTokenizer, saveCheckpoint, type Checkpoint } from './checkpoint';
export { growDepth, growthPlan } from './grow';
export {
  LoraConfigSchema,
  initLora,
  loadAdapter,
  loraSpecs,
  mergeLora,
  saveAdapter,
  type AdapterMap,
  type LoraConfig,
} from './lora';
export { DEFAULT_CONFIG_PATH } from './defaults';
export {
  MASKED_LOGIT,
  ModelGraphs,
  type SpanBatch,
  type SpanTargets,
  type SpanTrainResult,
  type TokenBatch,
  type TrainResult,
} from './graph/model.graphs';
export {
  allowedEnds,
  chooseSpan,
  packSpanReads,
  spanBiases,
  SpanReader,
  spanTrainBatch,
  type SpanCandidates,
  type SpanChoice,
  type SpanReadInput,
} from './span-read';
export {
  SENTENCE_MATCHES,
  SENTENCE_RECENCIES,
  sentenceMatch,
  sentenceRecencies,
  WORD_SHAPES,
  WORD_TAGS,
  wordFeature,
  wordFeatureCount,
  wordShape,
  wordTag,
  type SentenceMatch,
  type SentenceRecency,
  type WordShape,
  type WordTag,
} from './word-features';
export { KvCacheDecoder, KvCacheSession } from './graph/kv-cache.decoder';
export type { WeightMode } from './graph/model.graph';
export { TokenBatchFileSchema, toTrainBatch, type TokenBatchFile } from './batch';
export { createDefaultModel } from './defaults';
