/**
 * The SFT teacher: writes model episodes (code → real sandbox observation → … → a cell that calls answer()) per
 * task type, from a documented mix of robust and naive strategies whose code copies the question's key, in many
 * code phrasings, with repair turns; and the reader curriculum of leaf sub-calls. See docs/TEACHER.md.
 */
export {
  buildSftExamples,
  DEFAULT_REPAIR_SHARE,
  drawEpisode,
  renderSftExample,
  renderSftSubcall,
  type BuildSftOptions,
} from './build';
export { drawStyle, type CodeStyle } from './code';
export {
  runTeacherEpisode,
  MAX_CODE_TURNS,
  type SftSkip,
  type TeacherEpisodeOptions,
  type TeacherEpisodeResult,
} from './episode';
export { TeacherError, type TeacherErrorCode } from './errors';
export {
  DEFAULT_TEACHER_MIX,
  drawStrategies,
  parseTeacherMix,
  strategyProbabilities,
  validateMix,
  type TeacherMix,
} from './mix';
export { observationText, NO_OUTPUT } from './observation';
export { SUBCALL_UNKNOWN, teacherLlmHandler } from './oracle';
export {
  buildReaderExamples,
  readerCurriculumStats,
  type ReaderCurriculumOptions,
  type ReaderCurriculumStats,
} from './readers';
export { BUG_KINDS, breakCell, type BugKind } from './repair';
export { formatSftStats, SftStatsAccumulator, type SftGroupStats, type SftStats, type SftStrategyStats } from './stats';
export {
  findStrategy,
  ITEM_LIST,
  STRATEGIES_BY_TYPE,
  TEACHER_STRATEGIES,
  type TeacherMove,
  type TeacherStrategy,
  type TeacherView,
} from './strategies';
export { teacherView } from './view';
