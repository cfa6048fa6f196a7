import { z } from 'zod';
import { SplitSchema } from './task';

/**
 * Wire contracts of the environment service (apps/env-service): the OpenEnv-compatible HTTP, WebSocket and MCP
 * bodies, shared by its clients (rollout workers, OpenEnv/TRL clients, tests). The gRPC messages in
 * proto/env.proto carry the same fields with the same snake_case names.
 */

/** One action: code to run in the REPL, or the final answer. Exactly one of the two. */
export const EnvActionSchema = z
  .object({
    /** JavaScript run in the episode's REPL; `ctx`, `print` and `llm` are in scope. */
    code: z.string().min(1).optional(),
    /** The final answer; ends the episode and is scored. */
    answer: z.string().optional(),
  })
  .strict()
  .refine((a) => (a.code === undefined) !== (a.answer === undefined), {
    message: 'action must have exactly one of "code" or "answer"',
  });
export type EnvAction = z.infer<typeof EnvActionSchema>;

/**
 * Error codes of the environment service, shared by every transport. The first five are OpenEnv's WebSocket codes;
 * the rest name the failure more precisely. The env-service maps each to an HTTP status, a gRPC status and a
 * WebSocket code in one place (apps/env-service/src/errors.ts).
 */
export const ENV_ERROR_CODES = [
  'INVALID_JSON',
  'UNKNOWN_TYPE',
  'VALIDATION_ERROR',
  'EXECUTION_ERROR',
  'CAPACITY_REACHED',
  'PAYLOAD_TOO_LARGE',
  'EPISODE_NOT_FOUND',
  'TASK_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  'NO_ACTIVE_EPISODE',
  'EPISODE_DONE',
  'INTERNAL',
] as const;
export const EnvErrorCodeSchema = z.enum(ENV_ERROR_CODES);
export type EnvErrorCode = z.infer<typeof EnvErrorCodeSchema>;

/** Why a REPL step failed, as the model sees it in its observation (not a transport error). */
export const StepErrorSchema = z
  .object({
    /** Machine-readable code from the sandbox, e.g. "runtime", "syntax", "timeout", "memory_limit", "llm_limit". */
    code: z.string(),
    message: z.string(),
  })
  .strict();
export type StepError = z.infer<typeof StepErrorSchema>;

/** What the policy sees after a reset or a step. */
export const EnvObservationSchema = z
  .object({
    episode_id: z.string(),
    /** The question to answer about `ctx`. */
    question: z.string(),
    /** Output printed by the last code step, truncated to the configured limit. */
    stdout: z.string(),
    /** Characters cut from `stdout`; 0 when nothing was cut. */
    truncated_chars: z.number().int().nonnegative(),
    /** The error of the last code step, if any. */
    error: StepErrorSchema.nullable(),
    /** Names of the REPL's global variables after the last step. */
    variables: z.array(z.string()),
    /** Length of `ctx` in characters. */
    context_chars: z.number().int().nonnegative(),
    /** Size of `ctx` by the shared token estimator. */
    context_tokens: z.number().int().nonnegative(),
    /** Steps taken so far in this episode (code and answer). */
    step: z.number().int().nonnegative(),
    max_steps: z.number().int().positive(),
    /** llm() sub-calls made so far in this episode. */
    llm_calls: z.number().int().nonnegative(),
    cpu_ms: z.number().nonnegative(),
    wall_ms: z.number().nonnegative(),
    done: z.boolean(),
    reward: z.number().nullable(),
    /** On the final step: whether the answer matched the gold answer. */
    correct: z.boolean().nullable(),
  })
  .strict();
export type EnvObservation = z.infer<typeof EnvObservationSchema>;

/** The OpenEnv reply to a reset or a step. */
export const EnvStepReplySchema = z
  .object({
    observation: EnvObservationSchema,
    reward: z.number().nullable(),
    done: z.boolean(),
  })
  .strict();
export type EnvStepReply = z.infer<typeof EnvStepReplySchema>;

/** The episode's state (GET /state, WS "state", gRPC State). */
export const EnvStateSchema = z
  .object({
    episode_id: z.string(),
    step_count: z.number().int().nonnegative(),
    /** Dataset task id, or "inline" for a task given on reset. */
    task_id: z.string(),
    split: z.string(),
    done: z.boolean(),
    reward: z.number().nullable(),
    max_steps: z.number().int().positive(),
    context_tokens: z.number().int().nonnegative(),
    llm_calls: z.number().int().nonnegative(),
    /** ISO-8601 time of the reset. */
    started_at: z.string(),
  })
  .strict();
export type EnvState = z.infer<typeof EnvStateSchema>;

/** Largest `episode_id` accepted, as in OpenEnv. */
export const MAX_EPISODE_ID_LENGTH = 255;
export const EpisodeIdSchema = z.string().min(1).max(MAX_EPISODE_ID_LENGTH);

/**
 * Reset body. Task selection, in order: an inline task (`context`, `question`, `answer`, optional `aliases`);
 * a dataset task by `task_id` (optionally constrained to `split`); otherwise a task sampled from `split`
 * (default "train") by `seed` (random when absent). `episode_id` names the new episode (generated when absent);
 * resetting an existing id restarts that episode.
 */
export const EnvResetRequestSchema = z
  .object({
    seed: z.number().int().nonnegative().optional(),
    episode_id: EpisodeIdSchema.optional(),
    split: SplitSchema.optional(),
    task_id: z.string().min(1).optional(),
    context: z.string().min(1).optional(),
    question: z.string().min(1).optional(),
    answer: z.string().min(1).optional(),
    aliases: z.array(z.string().min(1)).optional(),
  })
  .strict()
  .superRefine((r, ctx) => {
    const inline = [r.context, r.question, r.answer].filter((v) => v !== undefined).length;
    if (inline > 0 && inline < 3) {
      ctx.addIssue({ code: 'custom', message: 'an inline task needs all of "context", "question" and "answer"' });
    }
    if (inline === 0 && r.aliases !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['aliases'], message: '"aliases" only applies to an inline task' });
    }
    if (inline === 3 && (r.task_id !== undefined || r.split !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either an inline task or "split"/"task_id", not both' });
    }
  });
export type EnvResetRequest = z.infer<typeof EnvResetRequestSchema>;

/** Step body over HTTP: OpenEnv's StepRequest plus the `episode_id` that names the session. */
export const EnvStepRequestSchema = z
  .object({
    episode_id: EpisodeIdSchema,
    action: EnvActionSchema,
    /** Wall-clock limit for this step in seconds; capped by the service's own limit. */
    timeout_s: z.number().positive().optional(),
    request_id: z.string().max(255).optional(),
  })
  .strict();
export type EnvStepRequest = z.infer<typeof EnvStepRequestSchema>;

/** WebSocket step payload: the session is the connection, so no episode id. */
export const WsStepDataSchema = EnvStepRequestSchema.omit({ episode_id: true }).strict();
export type WsStepData = z.infer<typeof WsStepDataSchema>;

export const WS_MESSAGE_TYPES = ['reset', 'step', 'state', 'close'] as const;
/** Envelope of every client→server WebSocket message. */
export const WsIncomingSchema = z.object({ type: z.string(), data: z.unknown().optional() }).strict();

/** Server→client WebSocket messages. */
export type WsOutgoing =
  | { type: 'observation'; data: EnvStepReply }
  | { type: 'state'; data: EnvState }
  | { type: 'error'; data: { message: string; code: string; reason: EnvErrorCode; details?: unknown } };

/** GET /metadata. */
export const EnvMetadataSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    version: z.string(),
    action_space: z.string(),
    max_concurrent_envs: z.number().int().positive(),
    max_steps: z.number().int().positive(),
    documentation_url: z.string().optional(),
  })
  .strict();
export type EnvMetadata = z.infer<typeof EnvMetadataSchema>;
