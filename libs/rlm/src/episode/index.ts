export {
  EpisodeConfigSchema,
  resolveEpisodeConfig,
  type EpisodeConfig,
  type EpisodeConfigInput,
} from './episode.config';
export {
  EpisodeRunner,
  episodeTaskOf,
  type EpisodeRunnerDeps,
  type EpisodeTask,
  type LeafCall,
  type LeafReader,
  type RunGroupOptions,
  type TurnEvent,
} from './episode.runner';
export { episodeEnd, type ActionOutcome, type EpisodeEnd } from './ending';
export { RolloutError, type RolloutErrorCode } from './errors';
export { NO_ACTION_OBSERVATION } from './observation';
export type {
  Policy,
  PolicyFinishReason,
  PolicyTokenizer,
  SampledContinuation,
  SampleRequest,
  SamplingParams,
  SpanReadRequest,
  SpanReadResult,
} from './policy';
export {
  encodeReadInput,
  goldSpan,
  questionWords,
  spanReadInput,
  spanText,
  type ChunkWord,
  type ReadInput,
} from './read-input';
export { readWithSpan, SamplerPolicy } from './sampler-policy';
export {
  TextEndpointPolicy,
  type EndpointSpanRead,
  type TextGenerate,
  type TextGenerationReply,
  type TextGenerationRequest,
} from './text-policy';
export {
  MIRROR_TASK,
  recursionScript,
  ScriptedTestPolicy,
  scriptText,
  type ScriptCall,
} from './scripted-policy.test-double';
export { encodeSegments, extractiveSpan, prefixMismatch, TokenMismatchError } from './tokens';
export {
  clientRewardTrajectory,
  flattenCalls,
  rolloutMetrics,
  toRewardTrajectory,
  trainingSequences,
  trainingSpanReads,
  type ClientAction,
  type ClientEpisode,
  type RolloutMetrics,
} from './trajectory';
