/**
 * @fathom/rewards: deterministic, pure reward functions shared by the env-service, the reward-service
 * and the eval. Attacks and their mitigations: libs/rewards/REWARD_AUDIT.md.
 */
export {
  DEFAULT_REWARD_WEIGHTS,
  FORMAT_COMPONENT,
  RewardConfigSchema,
  RewardTrajectorySchema,
  type RewardConfig,
  type RewardConfigInput,
  type RewardResult,
  type RewardTrajectory,
  type GroupReward,
} from '@fathom/contracts';
export { DEFAULT_REWARD_CONFIG, resolveRewardConfig } from './config';
export { RewardError, type RewardErrorCode, rewardErrorMessage } from './errors';
export { normalizeAnswer, parseNumber } from './normalize';
export { extractAnswer, extractCodeBlocks, lastLineAnswer, type ExtractedAnswer } from './extract';
export { countLlmCallsStatic, type StaticCallCount } from './llm-calls';
export {
  gradeAnswer,
  isCorrect,
  type AnswerGrade,
  type AnswerRejection,
  type RewardTask,
} from './components/correctness';
export { formatScore } from './components/format';
export { tokenBudgetScore, type TokenBudgetScore } from './components/token-budget';
export { recursionEfficiency } from './components/recursion';
export {
  composedComponents,
  registerRewardComponent,
  registeredRewardComponents,
  rewardComponent,
  type EpisodeFacts,
  type RewardComponent,
} from './registry';
export { countTrajectoryLlmCalls, scoreTrajectory } from './score';
export { scoreGroup } from './group';
