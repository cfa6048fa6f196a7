export { createPrismaClient, DEFAULT_DATABASE_URL, PrismaClient } from './client';
export { applyMigrations, dropDatabase, ensureDatabase, MIGRATIONS_DIR, type MigrationReport } from './migrate';
export { RunRepository, type NewRun, type Run, type RunStatus } from './run.repository';
export { PolicyVersionRepository, type PolicyVersion } from './policy-version.repository';
export { StepRepository, type StepRecord, type Step, type RewardComponentStat } from './step.repository';
export {
  EpisodeRepository,
  type EpisodeRecord,
  type EpisodeFilter,
  type RewardComponentValues,
  type StoredEpisode,
} from './episode.repository';
export {
  EvalRepository,
  evalRowsOf,
  type EvalResult,
  type EvalRow,
  type EvalRowFigures,
  type EvalRowSource,
} from './eval.repository';
