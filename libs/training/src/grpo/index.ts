export { GrpoTrainConfigSchema, parseGrpoTrainConfig, type GrpoTrainConfig, type GrpoTrainConfigInput } from './config';
export { collectGroups, groupSeed, type CollectedStep } from './collect';
export {
  applyUpdate,
  type Learner,
  type LearnerOptions,
  type LogprobDiff,
  type UpdateMetrics,
  type UpdateTimings,
} from './learner';
export { preflightGrpo, resolveSftPromptStyle } from './preflight';
export { RolloutStore, type StoredStep } from './rollout.store';
export { stepRecord, type GrpoStepRecord, type StepTimings } from './step.metrics';
export {
  frozenRoleOf,
  InProcessCollector,
  loadGrpoTasks,
  rolePolicies,
  runGrpo,
  StepStoppedError,
  tasksFingerprint,
  type FrozenRole,
  type GrpoObserver,
  type GrpoRunOptions,
  type GrpoRunResult,
  type PolicyFactory,
  type StepCollectRequest,
  type StepCollector,
} from './grpo.trainer';
export { REPLAYED_FIELDS, replayStep, type ReplayResult } from './replay';
export {
  DEFAULT_POLICY_DIR,
  defaultRunFolder,
  grpoTrainConfigOfRun,
  loadRunConfig,
  runCheckpointDir,
  runTasks,
} from './run.config';
export { RunContextCache, UnknownRunError, type RunConfigSource, type RunContext } from './run.context';
