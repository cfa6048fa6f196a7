/**
 * @fathom/training — the supervised fine-tuning loop (`fathom sft`) and the pieces a GRPO loop reuses: exact
 * segment-by-segment tokenisation with loss masks, right-padded batching, seeded resumable data order, AdamW with
 * warmup + cosine, checkpoint folders with training state, and metrics JSONL. Usage and metrics: docs/SFT.md.
 */
export { TrainingError, type Trainer, type TrainingErrorCode, type TrainingErrorContext } from './errors';
export { SftConfigSchema, parseSftConfig, loadSftConfig, type SftConfig, type SftConfigInput } from './config';
export {
  encodeConversation,
  trainedCount,
  packBatch,
  sftTokenWeights,
  type MaskedSequence,
  type PackOptions,
  type PackedBatch,
} from './tokens';
export { EpochSampler, permutation, streamSeed, type Bucketing, type DataPosition } from './sampler';
export {
  ConversationLineSchema,
  preflightConversation,
  readConversationLines,
  readReaderExamples,
  readSftConversations,
  readTeacherConversations,
  type Conversation,
  type ConversationLine,
} from './data.source';
export {
  dataFingerprint,
  splitHeldOut,
  tokenizeConversations,
  type TokenizedExample,
  type TokenizeReport,
} from './dataset';
export { createAdamW } from './optimizer';
export { evaluateLoss, type EvalLoss } from './evaluate';
export { MetricsLog, type MetricsRecord } from './metrics.log';
export { CheckpointStore, TrainingStateSchema, type TrainingCheckpoint, type TrainingState } from './checkpoint.store';
export {
  runSft,
  type SftDataReport,
  type SftEvalRecord,
  type SftObserver,
  type SftRunOptions,
  type SftRunResult,
  type SftStepRecord,
} from './sft.trainer';

// GRPO: the in-process training loop `fathom train` and its replay (docs/GRPO.md).
export { PROMPT_STYLE_FILE, readPromptStyle, writePromptStyle } from './prompt-style.file';
export { loadPolicy, resolvePromptStyle, type LoadedPolicy } from './policy.loader';
export * from './grpo';
export {
  loadReaderSftConfig,
  parseReaderSftConfig,
  readerAccuracy,
  ReaderSftConfigSchema,
  runReaderSft,
  type ReaderEvalRecord,
  type ReaderSftConfig,
  type ReaderSftObserver,
  type ReaderStepRecord,
} from './reader.trainer';
export { PAIRED_READER_DIR, spanReaderOf } from './policy.loader';
