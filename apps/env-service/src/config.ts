import { LOG_LEVELS } from '@fathom/observability';
import { DEFAULT_READER_WINDOW_CHARS } from '@fathom/rlm';
import { DEFAULT_LIMITS } from '@fathom/sandbox';
import { envInt, grpcEnvShape, HostNameListSchema, loadEnvConfig, OriginListSchema, PortSchema } from '@fathom/runtime';
import { z } from 'zod';

export { ConfigError } from '@fathom/runtime';

/**
 * The env-service's configuration, read once at boot from environment variables. Defaults work on one machine,
 * except INFERENCE_ADDRESS, which is required: llm() sub-calls always reach a real Inference endpoint, so there is
 * no default that could silently answer them with something else.
 */
export const EnvServiceConfigSchema = z.object({
  HOST: z.string().min(1).default('0.0.0.0'),
  /** HTTP + WebSocket port; 0 picks a free one. */
  HTTP_PORT: PortSchema.default(8000),
  /** gRPC Env port; 0 picks a free one. */
  GRPC_PORT: PortSchema.default(50051),
  /**
   * Where gRPC Env listens (loopback unless set; compose and k8s set 0.0.0.0), and the shared token its calls need
   * and this service sends to INFERENCE_ADDRESS (`grpcEnvShape`).
   */
  ...grpcEnvShape(),
  /** host:port of the Inference gRPC service that answers llm() sub-calls. */
  INFERENCE_ADDRESS: z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port'),
  /** Deadline of one Inference.Generate call. */
  INFERENCE_TIMEOUT_MS: envInt(1).default(DEFAULT_LIMITS.subcallTimeoutMs),
  /** Tokens a sub-call may generate, and its sampling temperature. */
  LLM_MAX_TOKENS: envInt(1).default(256),
  LLM_TEMPERATURE: z.coerce.number().min(0).max(2).default(0),
  /** llm() chunks up to this many characters are leaf reads; larger ones start a child episode over the chunk. */
  LLM_READER_WINDOW_CHARS: envInt(1).default(DEFAULT_READER_WINDOW_CHARS),
  /** Turns of a child episode, and the token window of the model behind the Inference endpoint. */
  LLM_CHILD_TURNS: envInt(1).default(4),
  LLM_CONTEXT_TOKENS: envInt(64).default(4096),
  /** A JSONL dataset file, or a folder of them (libs/tasks format). Without it only inline tasks can be reset. */
  DATASET_PATH: z.string().min(1).optional(),
  /** Largest accepted request (HTTP body, WebSocket message, gRPC message). 4 MiB holds a 200K-token context. */
  MAX_BODY_BYTES: envInt(1024).default(4 * 1024 * 1024),
  /**
   * Bytes of HTTP request bodies held at once for one client address, from a request's arrival to its response
   * (`bodyBudget`); past it the client's request is refused with 429 before its body is read.
   */
  MAX_BODY_BYTES_IN_FLIGHT: envInt(1024).default(64 * 1024 * 1024),
  /** Episodes open at once, over all transports. */
  MAX_CONCURRENT_ENVS: envInt(1).default(64),
  /** An episode untouched this long is closed and its sandbox freed. */
  IDLE_TIMEOUT_S: envInt(1).default(300),
  /** Steps per episode (code and answer); the step that reaches it ends the episode. */
  MAX_STEPS: envInt(1).default(16),
  /** Per-step wall-clock limit; a request's timeout_s can only lower it. */
  STEP_TIMEOUT_MS: envInt(1).default(DEFAULT_LIMITS.stepWallMs),
  /** Per-step CPU limit. */
  STEP_CPU_MS: envInt(1).default(DEFAULT_LIMITS.stepCpuMs),
  /** CPU budget of a whole episode (all its steps). */
  EPISODE_CPU_MS: envInt(1).default(DEFAULT_LIMITS.episodeCpuMs),
  /** Isolate heap limit per episode. */
  SANDBOX_MEMORY_MB: envInt(8).default(DEFAULT_LIMITS.memoryMb),
  /** Sandbox worker processes. */
  SANDBOX_WORKERS: envInt(1).default(2),
  /**
   * Sandbox worker processes at the lowest OS priority (nice 19), for the episodes of a session whose last code step
   * used up its CPU time or its memory, or broke its worker. 0: such episodes share the other workers.
   */
  SANDBOX_LOW_PRIORITY_WORKERS: envInt(0).default(1),
  /** stdout characters shown per step before truncation. */
  OUTPUT_CHARS: envInt(100).default(DEFAULT_LIMITS.maxOutputChars),
  /** llm() calls per episode and recursion depth of sub-calls. */
  MAX_LLM_CALLS: envInt(0).default(DEFAULT_LIMITS.maxLlmCalls),
  MAX_DEPTH: envInt(1).default(DEFAULT_LIMITS.maxDepth),
  /**
   * Bearer token of the OpenAI-compatible API (/v1/*): requests there need `Authorization: Bearer <API_TOKEN>`.
   * Unset: /v1 is open. The OpenEnv routes never need it, as upstream's clients send none.
   */
  API_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /**
   * Bearer token of the OpenEnv routes (HTTP, WebSocket /ws and /mcp; not /health, /metrics, nor /v1, which has
   * API_TOKEN): requests need `Authorization: Bearer <OPENENV_TOKEN>`. Unset: open, as upstream's clients send none.
   */
  OPENENV_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .refine((token) => !token.startsWith('change-me'), 'is the placeholder of k8s/config.yaml; set a random one')
    .optional(),
  /**
   * Web page origins (comma-separated `scheme://host[:port]`) whose browser requests and WebSocket upgrades are
   * served; a request with any other `Origin` is refused (403), except the service's own loopback origin. Requests
   * without `Origin` (every non-browser client) are not affected.
   */
  ENV_ALLOWED_ORIGINS: OriginListSchema.default([]),
  /**
   * With HOST on loopback, host names (comma-separated, no port) that requests may address besides loopback
   * (127.0.0.1, localhost, [::1]); any other `Host` is refused (421), so a web page rebound to 127.0.0.1 is not
   * answered. Unused when HOST is not loopback.
   */
  ENV_ALLOWED_HOSTS: HostNameListSchema.default([]),
  /** The model id /v1/models lists and /v1/chat/completions answers as. */
  FATHOM_MODEL_ID: z.string().min(1).default('fathom-rlm'),
  /**
   * Largest document (UTF-8 bytes) a chat completion accepts as `ctx`; larger is HTTP 413. The /v1/chat/completions
   * body may be twice this (JSON escaping, base64 file parts), so the document's own limit is the one clients meet.
   */
  MAX_DOCUMENT_BYTES: envInt(1024).default(4 * 1024 * 1024),
  /**
   * Memory for documents kept by their SHA-256 (resets with `context_sha256`), in MB of UTF-16 text; the least
   * recently used go first. 0 keeps none (every reset must send its document).
   */
  DOCUMENT_CACHE_MB: envInt(0).default(256),
  /** Model turns of the root episode a chat completion runs, and the tokens one turn may generate. */
  CHAT_MAX_TURNS: envInt(1).default(6),
  CHAT_MAX_TURN_TOKENS: envInt(1).default(512),
  /**
   * The prompt style the served model was trained with (its checkpoint's fathom_prompt_style.json): the system prompt
   * ("compact", as the shipped default model, or "full") and the characters of the document shown in the prompt.
   */
  CHAT_PROMPT_SYSTEM: z.enum(['full', 'compact']).default('compact'),
  CHAT_PREVIEW_CHARS: envInt(0).default(160),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
});

/** A class with no code of its own whose instances have the type `T`. */
const classOf = <T>() => class {} as unknown as abstract new () => T;

/**
 * The parsed configuration: `loadConfig` returns a plain object of the schema's type. A class of that type rather
 * than a type alias, so that it is also the Nest injection token of the configuration.
 */
export abstract class EnvServiceConfig extends classOf<z.infer<typeof EnvServiceConfigSchema>>() {}

/** Parses and validates the environment; throws ConfigError naming each bad or missing variable. */
export function loadConfig(env: Record<string, string | undefined>): EnvServiceConfig {
  return loadEnvConfig('env-service', EnvServiceConfigSchema, env, ['API_TOKEN', 'OPENENV_TOKEN']);
}
