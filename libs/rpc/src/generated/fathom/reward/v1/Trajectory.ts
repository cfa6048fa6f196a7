// Original file: proto/reward.proto

import type { Turn as _fathom_reward_v1_Turn, Turn__Output as _fathom_reward_v1_Turn__Output } from '../../../fathom/reward/v1/Turn';
import type { LlmCall as _fathom_reward_v1_LlmCall, LlmCall__Output as _fathom_reward_v1_LlmCall__Output } from '../../../fathom/reward/v1/LlmCall';

export interface Trajectory {
  'turns'?: (_fathom_reward_v1_Turn)[];
  /**
   * Set when the episode was executed (an executed episode with no calls sets executed and no calls); unset when
   * scored offline, in which case llm( calls are counted statically in the code.
   */
  'executed'?: (boolean);
  'llm_calls'?: (_fathom_reward_v1_LlmCall)[];
  'completion_tokens'?: (number);
  'subcall_tokens'?: (number);
  /**
   * The value the final turn's code passed to the REPL's answer(), when a code cell ended the episode.
   */
  'repl_answer'?: (string);
  /**
   * The sum of the rewards the environment reported over the episode (OpenEnv's reward); unset when it gave none.
   * The total when the reward config's source is "env".
   */
  'env_reward'?: (number | string);
  '_repl_answer'?: "repl_answer";
  '_env_reward'?: "env_reward";
}

export interface Trajectory__Output {
  'turns'?: (_fathom_reward_v1_Turn__Output)[];
  /**
   * Set when the episode was executed (an executed episode with no calls sets executed and no calls); unset when
   * scored offline, in which case llm( calls are counted statically in the code.
   */
  'executed'?: (boolean);
  'llm_calls'?: (_fathom_reward_v1_LlmCall__Output)[];
  'completion_tokens'?: (number);
  'subcall_tokens'?: (number);
  /**
   * The value the final turn's code passed to the REPL's answer(), when a code cell ended the episode.
   */
  'repl_answer'?: (string);
  /**
   * The sum of the rewards the environment reported over the episode (OpenEnv's reward); unset when it gave none.
   * The total when the reward config's source is "env".
   */
  'env_reward'?: (number);
  '_repl_answer'?: "repl_answer";
  '_env_reward'?: "env_reward";
}
