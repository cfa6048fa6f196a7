import { z } from 'zod';

/**
 * The trajectory as the reward sees it: only what `libs/rewards` needs to score one episode.
 *
 * Produced by the episode loop (`libs/rlm`) and the env-service from a finished episode, and by
 * offline tools (eval of stored completions) with `llmCalls: null`. Token ids, log-probs and masks
 * belong to the training trajectory, not here: the reward must not depend on them.
 */

/** One model turn of the episode: the raw text the policy sampled for that turn. */
export const RewardTurnSchema = z.strictObject({
  /**
   * The model's text for the turn, unmodified (code blocks, prose, `<answer>` tags).
   * REPL observations are not turns. The final answer is read from the last turn only.
   */
  completion: z.string(),
});
export type RewardTurn = z.infer<typeof RewardTurnSchema>;

/** One executed `llm()` call, a node of the episode's recursion tree, flattened. */
export const LlmCallRecordSchema = z.strictObject({
  /** Recursion depth of the call: 1 for a call made by the root episode's code, 2 for a call made by its child, … */
  depth: z.number().int().positive(),
  /** Tokens of the prompt the sub-model received for this call (question plus chunk, rendered). */
  promptTokens: z.number().int().nonnegative(),
  /** Tokens the sub-model generated for this call, including its own child episode's turns. */
  completionTokens: z.number().int().nonnegative(),
  /** Length in characters of the `chunk` argument, when one was passed. */
  chunkChars: z.number().int().nonnegative().optional(),
});
export type LlmCallRecord = z.infer<typeof LlmCallRecordSchema>;

export const RewardTrajectorySchema = z.strictObject({
  /** The model's turns in order; the final answer is expected in the last one. May be empty for an aborted episode. */
  turns: z.array(RewardTurnSchema),
  /**
   * Every `llm()` call the episode actually executed, at every depth (the recursion tree flattened).
   * `null` when the completion was never executed (scored offline): the reward then counts `llm(` calls
   * statically in the turns' code blocks. An executed episode with no calls is `[]`, not `null`.
   */
  llmCalls: z.array(LlmCallRecordSchema).nullable(),
  tokens: z.strictObject({
    /** Tokens the root policy generated over all turns of the episode (model tokens only, no observations). */
    completion: z.number().int().nonnegative(),
    /** Tokens spent by all `llm()` sub-calls, prompt plus completion, at every depth. 0 when scored offline. */
    subcall: z.number().int().nonnegative(),
  }),
  /**
   * The value the final turn's code passed to the REPL's `answer()`, when a code cell (not an `<answer>` tag)
   * ended the episode. Absent otherwise, and when the completion was never executed (scored offline).
   */
  replAnswer: z.string().optional(),
  /**
   * The sum of the rewards the environment reported over the episode (OpenEnv's `reward`), the total when the reward
   * config's source is `env`. Absent when it reported none (FATHOM's own sandbox never does).
   */
  envReward: z.number().optional(),
});
export type RewardTrajectory = z.infer<typeof RewardTrajectorySchema>;
