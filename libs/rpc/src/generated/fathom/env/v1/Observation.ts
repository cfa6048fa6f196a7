// Original file: proto/env.proto

import type { StepError as _fathom_env_v1_StepError, StepError__Output as _fathom_env_v1_StepError__Output } from '../../../fathom/env/v1/StepError';
import type { Long } from '@grpc/proto-loader';

export interface Observation {
  'episode_id'?: (string);
  'question'?: (string);
  'stdout'?: (string);
  'truncated_chars'?: (number);
  'error'?: (_fathom_env_v1_StepError | null);
  'variables'?: (string)[];
  'context_chars'?: (number | string | Long);
  'context_tokens'?: (number | string | Long);
  'step'?: (number);
  'max_steps'?: (number);
  'llm_calls'?: (number);
  'cpu_ms'?: (number | string);
  'wall_ms'?: (number | string);
  'done'?: (boolean);
  'reward'?: (number | string);
  'correct'?: (boolean);
  /**
   * The answer the episode ended with; unset while it runs and when it ended unanswered.
   */
  'answer'?: (string);
  /**
   * The SHA-256 the service keeps the document under (a reset with context_sha256); unset otherwise.
   */
  'context_sha256'?: (string);
  '_error'?: "error";
  '_reward'?: "reward";
  '_correct'?: "correct";
  '_answer'?: "answer";
  '_context_sha256'?: "context_sha256";
}

export interface Observation__Output {
  'episode_id'?: (string);
  'question'?: (string);
  'stdout'?: (string);
  'truncated_chars'?: (number);
  'error'?: (_fathom_env_v1_StepError__Output);
  'variables'?: (string)[];
  'context_chars'?: (number);
  'context_tokens'?: (number);
  'step'?: (number);
  'max_steps'?: (number);
  'llm_calls'?: (number);
  'cpu_ms'?: (number);
  'wall_ms'?: (number);
  'done'?: (boolean);
  'reward'?: (number);
  'correct'?: (boolean);
  /**
   * The answer the episode ended with; unset while it runs and when it ended unanswered.
   */
  'answer'?: (string);
  /**
   * The SHA-256 the service keeps the document under (a reset with context_sha256); unset otherwise.
   */
  'context_sha256'?: (string);
  '_error'?: "error";
  '_reward'?: "reward";
  '_correct'?: "correct";
  '_answer'?: "answer";
  '_context_sha256'?: "context_sha256";
}
