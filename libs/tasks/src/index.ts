/**
 * @fathom/tasks — FATHOM's synthetic long-context QA tasks: a deterministic seeded generator (niah, extractive,
 * multi_needle, counting, tracking, multi_hop) with train/heldout phrasing and frame families, open-vocabulary
 * answers, split-partitioned entities and structured ground truth (`Task.meta`); JSONL I/O, validation, statistics,
 * the oracle reader, the reader curriculum, the regex-only baseline and the shared token estimator.
 * Schema and rules: docs/DATASETS.md.
 */
export { estimateTokens, CHARS_PER_TOKEN } from './tokens';
export {
  generateTasks,
  generateTask,
  resolveGenerateOptions,
  parseMix,
  parseVariantRates,
  taskId,
  DEFAULT_SPLIT_SIZES,
  DEFAULT_MIX,
  DEFAULT_MIN_TOKENS,
  DEFAULT_MAX_TOKENS,
  DEFAULT_VARIANT_RATES,
  MIN_CONTEXT_TOKENS,
  LONG_CONTEXT_TOKENS,
  HELDOUT_LONG_SHARE,
  type GenerateOptions,
  type ResolvedGenerateOptions,
  type LengthDistribution,
} from './generator';
export {
  FRAMES,
  OWNER_OF_QUESTION,
  phrasingsOf,
  QUESTIONS,
  SUB_QUESTIONS,
  type Frame,
  type Phrasing,
  type Slots,
} from './frames';
export { splitOf } from './lexicon';
export { readTasksJsonl, writeTasksJsonl, serializeTask } from './jsonl';
export {
  validateTasksFile,
  checkTaskLine,
  type LineIssue,
  type ValidationReport,
  type ValidateOptions,
} from './validate';
export { structuralIssues, sentencesOf } from './structure';
export { datasetStats, DatasetStatsAccumulator, type DatasetStats, type Distribution } from './stats';
export { TasksError, type TasksErrorCode } from './errors';
export { oracleRead, ORACLE_UNKNOWN } from './oracle';
export {
  generateReaderExamples,
  OTHER_ENTITY,
  READER_TYPES,
  READER_UNKNOWN_SHARE,
  type ChunkDistractor,
  type ReaderExample,
  type ReaderExampleOptions,
} from './reader-examples';
export { REGEX_BASELINE, runRegexBaseline } from './baseline/regex-baseline';
