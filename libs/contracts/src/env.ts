import { z } from 'zod';
import { SplitSchema } from './task';
import { storableText, TextIdSchema } from './text';

/**
 * Wire contracts of the environment service (apps/env-service): the OpenEnv-compatible HTTP, WebSocket and MCP
 * bodies, shared by its clients (rollout workers, OpenEnv/TRL clients, tests). The gRPC messages in
 * proto/env.proto carry the same fields with the same snake_case names.
 */

/**
 * One action, in either of two shapes, normalized to `{code}` or `{answer}`:
 * - FATHOM's: exactly one of `code` (JavaScript run in the REPL) or `answer` (the final answer);
 * - OpenEnv REPLEnv's (envs/repl_env `REPLAction`): `{code, is_final, final_answer}`; `is_final: true` submits
 *   `final_answer` (code is then ignored, as upstream does), otherwise `code` runs (an empty string runs nothing).
 * OpenEnv's base `Action.metadata` is accepted and ignored. Unknown keys are refused, as upstream's actions forbid them.
 */
export const EnvActionSchema = z
  .object({
    /** JavaScript run in the episode's REPL; `ctx`, `print`, `llm` and `answer` are in scope. */
    code: z.string().optional(),
    /** The final answer; ends the episode and is scored. */
    answer: z.string().optional(),
    /** OpenEnv REPLEnv: true submits `final_answer` and ends the episode. */
    is_final: z.boolean().optional(),
    /** OpenEnv REPLEnv: the final answer when `is_final` is true. */
    final_answer: z.string().nullable().optional(),
    /** OpenEnv's base Action field; ignored. */
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    if (a.is_final === true) {
      if (a.answer !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['answer'],
          message: 'with "is_final": true the answer goes in "final_answer"',
        });
      }
      return;
    }
    if ((a.code === undefined) === (a.answer === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'action must have exactly one of "code" or "answer" (or REPLEnv\'s "is_final": true with "final_answer")',
      });
    }
    const replShape = a.is_final !== undefined || a.final_answer !== undefined;
    if (a.code === '' && !replShape)
      ctx.addIssue({ code: 'custom', path: ['code'], message: '"code" must not be empty' });
  })
  .transform((a): EnvAction => {
    if (a.is_final === true) return { answer: a.final_answer ?? '' };
    return a.answer !== undefined ? { answer: a.answer } : { code: a.code ?? '' };
  });
/** A normalized action: code to run, or the final answer. */
export type EnvAction = { code: string; answer?: undefined } | { answer: string; code?: undefined };

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
  /** The episode belongs to another WebSocket connection, the only one that may step, read or close it. */
  'EPISODE_FORBIDDEN',
  /** A reset named an episode id that is open (or being opened); ids are never silently closed and reused. */
  'EPISODE_EXISTS',
  /** OPENENV_TOKEN is set and the request's `Authorization: Bearer` is missing or wrong. */
  'UNAUTHORIZED',
  /** A browser request (its `Origin`) from a web page that is not the service's own nor in ENV_ALLOWED_ORIGINS. */
  'FORBIDDEN_ORIGIN',
  /** On loopback, a request addressed (`Host`) to a name that is not loopback nor in ENV_ALLOWED_HOSTS. */
  'MISDIRECTED_REQUEST',
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

/** OpenEnv REPLEnv's CodeBlockResult: the last code step as its client reads it. */
export const ReplCodeBlockResultSchema = z
  .object({
    stdout: z.string(),
    /** The step's error as "code: message", or "". */
    stderr: z.string(),
    /**
     * The guest's variables after the step (those of `variables`: at most 100) by name, each value in a short form:
     * a string quoted, an array as `Array(n)` and its first 5 items, anything else as `print` shows it, cut to 200
     * characters. Empty before the first code step.
     */
    locals_snapshot: z.record(z.string(), z.string()),
    /** Wall time of the step in seconds. */
    execution_time: z.number().nonnegative(),
    success: z.boolean(),
    exception: z.string().nullable(),
  })
  .strict();

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
    /**
     * The SHA-256 the service keeps this episode's document under (a reset with `context_sha256`), so a later reset
     * may name it instead of sending the document again; null otherwise.
     */
    context_sha256: z.string().nullable(),
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
    /**
     * The answer the episode ended with (an answer action, or `answer(value)` called in code); null while it runs
     * and when it ended unanswered.
     */
    answer: z.string().nullable(),
    /**
     * OpenEnv REPLEnv's names for the same step (its REPLObservation fields), so its client reads them unchanged:
     * `result` is its CodeBlockResult, the rest alias `context_chars`, `variables`, `step` and `max_steps`.
     */
    result: ReplCodeBlockResultSchema,
    context_length: z.number().int().nonnegative(),
    available_variables: z.array(z.string()),
    iteration: z.number().int().nonnegative(),
    max_iterations: z.number().int().positive(),
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
    /**
     * OpenEnv REPLEnv's names (its REPLState fields), so its client reads them unchanged (`list_variables()` is
     * `namespace_keys`): the guest's variable names after the last code step (at most 100), the steps taken and
     * allowed (`step_count`, `max_steps`), the document's first STATE_CONTEXT_CHARS characters (the whole document is
     * the REPL's `ctx`; `context_tokens` gives its size), the question, and the answer the episode ended with.
     */
    namespace_keys: z.array(z.string()),
    iteration: z.number().int().nonnegative(),
    max_iterations: z.number().int().positive(),
    context: z.string(),
    task_prompt: z.string(),
    final_answer: z.string().nullable(),
  })
  .strict();
export type EnvState = z.infer<typeof EnvStateSchema>;

/** Characters of the document a state carries as `context` (REPLEnv's field); a state is read often, a document is large. */
export const STATE_CONTEXT_CHARS = 2_000;

/** Largest `episode_id` accepted, as in OpenEnv. */
export const MAX_EPISODE_ID_LENGTH = 255;
/** Well-formed text without NUL (`storableText`): ids reach logs, metrics labels and the recursion tree. */
export const EpisodeIdSchema = storableText(MAX_EPISODE_ID_LENGTH);

/**
 * Reset body. Task selection, in order: an inline task over `context` (with `question` and the gold `answer`, or
 * OpenEnv REPLEnv's `task_prompt` and `expected_answer`; without a gold answer the episode is ad hoc and unscored);
 * a dataset task by `task_id` (optionally constrained to `split`); otherwise a task sampled from `split` (default
 * "train") by `seed` (random when absent). `episode_id` names the new episode on a session (WebSocket, gRPC
 * Session), which holds it; elsewhere the server assigns ids and refuses one; an id that is open is refused. Unknown
 * keys are accepted and ignored, as OpenEnv's ResetRequest allows extras (REPLEnv's `hf_token`, `llm_model`,
 * `rlm_max_depth`… have no meaning here: llm() is served by FATHOM).
 */
export const EnvResetRequestSchema = z
  .object({
    seed: z.number().int().nonnegative().optional(),
    episode_id: EpisodeIdSchema.optional(),
    split: SplitSchema.optional(),
    task_id: TextIdSchema.optional(),
    context: z.string().min(1).optional(),
    /**
     * The SHA-256 of the document (64 lowercase hex digits). With `context`, the service checks it and keeps the
     * document under it (recent documents, per replica); alone, it names a document the service keeps, so the G
     * episodes of a group send their document once. A hash the replica does not hold is TASK_NOT_FOUND: send the
     * context with it.
     */
    context_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'expected the SHA-256 of the context as 64 lowercase hex digits')
      .optional(),
    question: z.string().min(1).optional(),
    /** OpenEnv REPLEnv's name for the question. */
    task_prompt: z.string().min(1).optional(),
    answer: z.string().min(1).optional(),
    /** OpenEnv REPLEnv's name for the gold answer. */
    expected_answer: z.string().min(1).optional(),
    aliases: z.array(z.string().min(1)).optional(),
    /**
     * The session's client answers this episode's llm() calls: the server sends it an `llm_request` for each call
     * and waits for its `llm_reply`. Only on a session whose client can answer (WebSocket /ws, gRPC Env.Session);
     * otherwise the service serves llm() with its configured inference endpoint.
     */
    serve_llm: z.boolean().optional(),
  })
  .superRefine((r, ctx) => {
    const both = (a: unknown, b: unknown, message: string) => {
      if (a !== undefined && b !== undefined) ctx.addIssue({ code: 'custom', message });
    };
    both(r.question, r.task_prompt, 'give the question as "question" or "task_prompt", not both');
    both(r.answer, r.expected_answer, 'give the gold answer as "answer" or "expected_answer", not both');
    const inlineOnly = [r.question, r.task_prompt, r.answer, r.expected_answer, r.aliases].some((v) => v !== undefined);
    const inline = r.context !== undefined || r.context_sha256 !== undefined;
    if (!inline && inlineOnly) {
      ctx.addIssue({ code: 'custom', message: 'an inline task needs "context" (the document) or "context_sha256"' });
    }
    if (r.aliases !== undefined && r.answer === undefined && r.expected_answer === undefined) {
      ctx.addIssue({ code: 'custom', path: ['aliases'], message: '"aliases" needs a gold "answer"' });
    }
    if (inline && (r.task_id !== undefined || r.split !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give either an inline task or "split"/"task_id", not both' });
    }
  });
export type EnvResetRequest = z.infer<typeof EnvResetRequestSchema>;

/**
 * Step body over HTTP: OpenEnv's StepRequest plus `episode_id`, FATHOM's name for an HTTP session. Without
 * `episode_id` the step is stateless, as OpenEnv's HTTP API is: it runs in a fresh scratch episode (empty `ctx`,
 * unscored) that is closed right after. Unknown keys are accepted and ignored (OpenEnv's StepRequest allows extras).
 */
export const EnvStepRequestSchema = z.object({
  episode_id: EpisodeIdSchema.optional(),
  action: EnvActionSchema,
  /** Wall-clock limit for this step in seconds; capped by the service's own limit. */
  timeout_s: z.number().positive().optional(),
  /**
   * Tokens the client's model sampled for the turn this action came from. Given on every step of an episode, the
   * episode's reward counts them instead of estimating the turns' tokens from the actions' text.
   */
  completion_tokens: z.number().int().nonnegative().max(10_000_000).optional(),
  request_id: z.string().max(255).optional(),
});
export type EnvStepRequest = z.infer<typeof EnvStepRequestSchema>;

const WsStepEnvelopeSchema = EnvStepRequestSchema.omit({ episode_id: true }).strict();
/**
 * WebSocket step payload (`data` of a "step" message); the session is the connection, so no episode id. OpenEnv's
 * EnvClient sends the action fields themselves as `data` (REPLEnv: `{code, is_final, final_answer}`); FATHOM's
 * earlier envelope `{action, timeout_s?, request_id?}` is still accepted (told apart by its `action` key).
 */
export const WsStepDataSchema = z.preprocess(
  (data) => (data !== null && typeof data === 'object' && 'action' in data ? data : { action: data }),
  WsStepEnvelopeSchema,
);
export type WsStepData = z.infer<typeof WsStepDataSchema>;

export const WS_MESSAGE_TYPES = ['reset', 'step', 'state', 'close', 'mcp', 'llm_reply'] as const;

/**
 * One guest `llm(prompt, chunk)` call of an episode reset with `serve_llm`, sent to the session's client to answer:
 * the client decides what the call means (FATHOM's rollout worker: a leaf read or a child episode, `planSubcall`) and
 * writes it with its own model.
 */
export interface SessionLlmRequest {
  request_id: string;
  /** The episode that made the call, and the call's depth (1: the episode's own llm()). */
  episode_id: string;
  depth: number;
  /** The guest's question and the chunk it passed (absent when it passed none). */
  prompt: string;
  chunk?: string;
  /** Sub-call tokens the episode has left; the answer should fit in them. */
  token_budget: number;
}

/**
 * The client's answer to an `llm_request`, named by its request_id: the text the guest's llm() returns (with the
 * tokens it cost, for the episode's accounting), or an error message (the guest's llm() then fails with it).
 */
export const SessionLlmReplySchema = z
  .object({
    request_id: z.string().min(1).max(255),
    reply: z
      .object({
        text: z.string(),
        prompt_tokens: z.number().int().nonnegative().optional(),
        completion_tokens: z.number().int().nonnegative().optional(),
      })
      .optional(),
    error: z.string().min(1).max(4096).optional(),
  })
  .refine((r) => (r.reply === undefined) !== (r.error === undefined), {
    message: 'an llm reply carries exactly one of "reply" (the answer) or "error"',
  });
export type SessionLlmReply = z.infer<typeof SessionLlmReplySchema>;
/** Envelope of every client→server WebSocket message. */
export const WsIncomingSchema = z.object({ type: z.string(), data: z.unknown().optional() }).strict();

/** A JSON-RPC 2.0 response (POST /mcp, WebSocket /mcp, and the `data` of a WS "mcp" reply). */
export type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: string | number | null; result: unknown }
  | { jsonrpc: '2.0'; id: string | number | null; error: { code: number; message: string; data?: unknown } };

/** Server→client WebSocket messages. */
export type WsOutgoing =
  | { type: 'observation'; data: EnvStepReply }
  | { type: 'state'; data: EnvState }
  | { type: 'mcp'; data: JsonRpcResponse }
  | { type: 'llm_request'; data: SessionLlmRequest }
  | { type: 'error'; data: { message: string; code: string; reason: EnvErrorCode; details?: unknown } };

/** GET /state without an episode: OpenEnv's base State of a fresh environment (HTTP is stateless upstream). */
export interface EnvFreshState {
  episode_id: null;
  step_count: 0;
}

/** GET /metadata: exactly OpenEnv's EnvironmentMetadata (which forbids other keys). */
export const EnvMetadataSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    readme_content: z.string().nullable().optional(),
    version: z.string().nullable().optional(),
    author: z.string().nullable().optional(),
    documentation_url: z.string().nullable().optional(),
  })
  .strict();
export type EnvMetadata = z.infer<typeof EnvMetadataSchema>;

/** GET /capabilities: FATHOM's additions to the metadata (kept off /metadata, whose upstream model forbids extras). */
export const EnvCapabilitiesSchema = z
  .object({
    action_space: z.string(),
    max_concurrent_envs: z.number().int().positive(),
    /** Capacity slots in use: open episodes, resets in flight, and WebSocket sessions (held from connect). */
    active_sessions: z.number().int().nonnegative(),
    max_steps: z.number().int().positive(),
    /** Session transports and message types this service speaks. */
    transports: z.array(z.string()),
    /** MCP tool names (tools/list has their schemas). */
    mcp_tools: z.array(z.string()),
  })
  .strict();
export type EnvCapabilities = z.infer<typeof EnvCapabilitiesSchema>;
