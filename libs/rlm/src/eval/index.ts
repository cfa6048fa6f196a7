export {
  CONTEXT_BUCKETS,
  contextBucketOf,
  evalStats,
  evaluate,
  evaluateProgram,
  groupResults,
  PHRASINGS,
  phrasingOf,
  type ContextBucket,
  type EvalCallRecord,
  type EvalEpisode,
  type EvalOptions,
  type EvalReport,
  type EvalStats,
  type EvalTaskResult,
  type Phrasing,
  type TaskLeafReader,
} from './evaluate';
export { scoreLeaf, subquestionOfLeaf, type LeafScore, type LeafVerdict } from './leaf';
export {
  EVAL_BASELINES,
  evaluateSuite,
  spreadOf,
  type EvalBaseline,
  type EvalProgress,
  type EvalSuiteOptions,
  type EvalSuiteReport,
  type EvalSummary,
  type EvalSummaryStats,
  type EvalSystem,
  type EvalSystemReport,
  type Spread,
} from './suite';
export { formatEvalTable } from './table';
export {
  charSimilarity,
  evaluateReader,
  type ReaderEvalOptions,
  type ReaderEvalReport,
  type ReaderStats,
} from './reader';
