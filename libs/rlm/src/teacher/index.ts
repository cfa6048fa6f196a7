/**
 * The SFT teacher: writes model episodes (code → real sandbox observation → … → a cell that calls answer()) per
 * task type, from a documented mix of robust and naive strategies. See docs/TEACHER.md.
 */
export { buildSftExamples, renderSftExample, renderSftSubcall, type BuildSftOptions } from './build';
export { runTeacherEpisode, MAX_CODE_TURNS, type SftSkip, type TeacherEpisodeResult } from './episode';
export { TeacherError, TeacherErrorCode } from './errors';
export {
  DEFAULT_TEACHER_MIX,
  drawStrategies,
  parseTeacherMix,
  strategyProbabilities,
  validateMix,
  type TeacherMix,
} from './mix';
export { observationText, NO_OUTPUT } from './observation';
export { parseTaskQuestion, type TaskQuestion } from './question';
export { answerSubcallAsTeacher, SUBCALL_UNKNOWN } from './subcall';
export { formatSftStats, SftStatsAccumulator, type SftGroupStats, type SftStats, type SftStrategyStats } from './stats';
export {
  findStrategy,
  STRATEGIES_BY_TYPE,
  TEACHER_STRATEGIES,
  type AnyTeacherStrategy,
  type TeacherMove,
  type TeacherStrategy,
} from './strategies';
