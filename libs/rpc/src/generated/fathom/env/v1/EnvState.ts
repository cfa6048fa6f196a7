// Original file: proto/env.proto

import type { Long } from '@grpc/proto-loader';

export interface EnvState {
  'episode_id'?: (string);
  'step_count'?: (number);
  'task_id'?: (string);
  'split'?: (string);
  'done'?: (boolean);
  'reward'?: (number | string);
  'max_steps'?: (number);
  'context_tokens'?: (number | string | Long);
  'llm_calls'?: (number);
  'started_at'?: (string);
  '_reward'?: "reward";
}

export interface EnvState__Output {
  'episode_id'?: (string);
  'step_count'?: (number);
  'task_id'?: (string);
  'split'?: (string);
  'done'?: (boolean);
  'reward'?: (number);
  'max_steps'?: (number);
  'context_tokens'?: (number);
  'llm_calls'?: (number);
  'started_at'?: (string);
  '_reward'?: "reward";
}
