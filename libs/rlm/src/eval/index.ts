export {
  CONTEXT_BUCKETS,
  contextBucketOf,
  evaluate,
  formatEvalTable,
  type ContextBucket,
  type EvalOptions,
  type EvalReport,
  type EvalStats,
  type EvalTaskResult,
} from './evaluate';
