/**
 * @fathom/tasks — FATHOM's synthetic long-context QA tasks: a deterministic seeded generator (niah, extractive,
 * multi_needle, counting, with distractors), split-disjoint entity vocabularies, JSONL I/O, validation, statistics,
 * and the shared token estimator. Schema and rules: docs/DATASETS.md.
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
  type GenerateOptions,
  type ResolvedGenerateOptions,
  type LengthDistribution,
} from './generator';
export { readTasksJsonl, writeTasksJsonl, serializeTask } from './jsonl';
export {
  validateTasksFile,
  checkTaskLine,
  type LineIssue,
  type ValidationReport,
  type ValidateOptions,
} from './validate';
export { datasetStats, DatasetStatsAccumulator, type DatasetStats, type Distribution } from './stats';
export { solveTask, type SolveResult } from './solver';
export { TasksError, TasksErrorCode } from './errors';
