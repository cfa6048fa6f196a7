// Original file: proto/env.proto

import type { Long } from '@grpc/proto-loader';

export interface ResetRequest {
  'seed'?: (number | string | Long);
  'episode_id'?: (string);
  /**
   * Dataset selection: a task by id, or sampled from split by seed.
   */
  'split'?: (string);
  'task_id'?: (string);
  /**
   * Inline task; context, question and answer go together.
   */
  'context'?: (string);
  'question'?: (string);
  'answer'?: (string);
  'aliases'?: (string)[];
  /**
   * The session's client answers the episode's llm() calls (Session only; a unary Reset refuses it).
   */
  'serve_llm'?: (boolean);
  /**
   * The SHA-256 of the context (64 lowercase hex digits): with context, kept under it; alone, names a kept document.
   */
  'context_sha256'?: (string);
  '_seed'?: "seed";
  '_episode_id'?: "episode_id";
  '_split'?: "split";
  '_task_id'?: "task_id";
  '_context'?: "context";
  '_question'?: "question";
  '_answer'?: "answer";
  '_serve_llm'?: "serve_llm";
  '_context_sha256'?: "context_sha256";
}

export interface ResetRequest__Output {
  'seed'?: (number);
  'episode_id'?: (string);
  /**
   * Dataset selection: a task by id, or sampled from split by seed.
   */
  'split'?: (string);
  'task_id'?: (string);
  /**
   * Inline task; context, question and answer go together.
   */
  'context'?: (string);
  'question'?: (string);
  'answer'?: (string);
  'aliases'?: (string)[];
  /**
   * The session's client answers the episode's llm() calls (Session only; a unary Reset refuses it).
   */
  'serve_llm'?: (boolean);
  /**
   * The SHA-256 of the context (64 lowercase hex digits): with context, kept under it; alone, names a kept document.
   */
  'context_sha256'?: (string);
  '_seed'?: "seed";
  '_episode_id'?: "episode_id";
  '_split'?: "split";
  '_task_id'?: "task_id";
  '_context'?: "context";
  '_question'?: "question";
  '_answer'?: "answer";
  '_serve_llm'?: "serve_llm";
  '_context_sha256'?: "context_sha256";
}
