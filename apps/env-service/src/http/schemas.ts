import {
  EnvActionSchema,
  EnvCapabilitiesSchema,
  EnvErrorCodeSchema,
  EnvMetadataSchema,
  EnvObservationSchema,
  EnvResetRequestSchema,
  EnvStateSchema,
  EnvStepReplySchema,
  EnvStepRequestSchema,
  EpisodeIdSchema,
  describedResponses,
  openApiDocument as buildOpenApiDocument,
  OPS_OPERATIONS,
  type ApiOperation,
  type JsonSchema,
} from '@fathom/contracts';
import { z } from 'zod';
import { JsonRpcRequestSchema } from '../mcp/mcp.handler';
import { ChatRequestSchema } from '../openai/chat-request';
import { OPENAI_ERROR_TYPES, OPENAI_WIRE_CODES } from '../openai/openai.errors';

const schema = (s: z.ZodType, io: 'input' | 'output' = 'output'): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(s, { io }) as JsonSchema;
  return rest;
};

/** GET /schema: JSON Schemas of action, observation and state, derived from the zod contracts. */
export function envSchemas(): { action: JsonSchema; observation: JsonSchema; state: JsonSchema } {
  return {
    action: schema(EnvActionSchema, 'input'),
    observation: schema(EnvObservationSchema),
    state: schema(EnvStateSchema),
  };
}

export const CloseRequestSchema = z.strictObject({ episode_id: EpisodeIdSchema });
export const StateQuerySchema = z.object({
  episode_id: EpisodeIdSchema.optional().describe(
    "The HTTP session's episode; without it, a fresh environment's state {episode_id: null, step_count: 0}",
  ),
});

/** The body of every HTTP error: OpenEnv's `detail` plus a code and a one-line message. */
export const ErrorReplySchema = z.strictObject({
  code: EnvErrorCodeSchema,
  message: z.string(),
  detail: z.unknown().describe('The message, or for 422 the list of {loc, msg, type} issues'),
});

/** OpenAI's error body, as /v1 answers. */
export const OpenAiErrorReplySchema = z.strictObject({
  error: z.strictObject({
    message: z.string(),
    type: z.enum(OPENAI_ERROR_TYPES),
    param: z.string().nullable(),
    code: z.enum(OPENAI_WIRE_CODES),
  }),
});

export const StateReplySchema = z.union([
  EnvStateSchema,
  z.strictObject({ episode_id: z.null(), step_count: z.literal(0) }),
]);
export const CloseReplySchema = z.strictObject({ episode_id: z.string(), closed: z.literal(true) });
export const SchemasReplySchema = z.strictObject({
  action: z.record(z.string(), z.unknown()),
  observation: z.record(z.string(), z.unknown()),
  state: z.record(z.string(), z.unknown()),
});
export const ModelsReplySchema = z.strictObject({
  object: z.literal('list'),
  data: z.array(
    z.strictObject({ id: z.string(), object: z.literal('model'), created: z.number().int(), owned_by: z.string() }),
  ),
});
export const ChatCompletionReplySchema = z.looseObject({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(z.looseObject({ index: z.number().int(), message: z.looseObject({ content: z.string() }) })),
  usage: z.looseObject({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  fathom: z
    .looseObject({ status: z.string(), turns: z.array(z.unknown()) })
    .optional()
    .describe(
      '{status, stop_reason, turns, recursion_tree, tokens}: the episode behind the answer (absent from a turn of ' +
        "a conversation in FATHOM's own prompt, which runs no episode here)",
    ),
});

const ENV_ERRORS: Record<number, string> = {
  400: 'Malformed JSON, or a body that is not UTF-8',
  401: 'OPENENV_TOKEN is set and the bearer token is missing or wrong (UNAUTHORIZED)',
  403:
    'Episode belongs to a WebSocket connection (EPISODE_FORBIDDEN), or a web page origin not in ' +
    'ENV_ALLOWED_ORIGINS (FORBIDDEN_ORIGIN)',
  404: 'Unknown episode or task',
  409: 'Episode already done',
  413: 'Body over the size limit',
  421: 'On loopback, a Host that is not loopback nor in ENV_ALLOWED_HOSTS (MISDIRECTED_REQUEST)',
  422: 'Validation error (detail lists each issue), or a reset naming an episode_id (the server assigns them)',
  429: 'MAX_CONCURRENT_ENVS reached, 32 steps of the episode running or waiting, or MAX_BODY_BYTES_IN_FLIGHT held',
};
const envErrors = describedResponses(ENV_ERRORS, ErrorReplySchema);
const OPENAI_ERRORS: Record<number, string> = {
  400: 'Bad JSON, no question or document, ambiguous document, unsupported parameter, more than 4 stop strings',
  401: 'Missing or wrong bearer token (when API_TOKEN is set)',
  404: 'Another model id than FATHOM_MODEL_ID',
  413: 'Document over MAX_DOCUMENT_BYTES, or body over twice that',
  429: 'MAX_CONCURRENT_ENVS reached, or MAX_BODY_BYTES_IN_FLIGHT held',
  502: 'The episode could not run (inference endpoint or sandbox down)',
};
const openAiErrors = describedResponses(OPENAI_ERRORS, OpenAiErrorReplySchema);

/**
 * Every HTTP route of the env-service, once, with the zod schemas its handlers parse with; the OpenAPI document is
 * generated from this, and the acceptance tests check replies against the response schemas.
 */
export const ENV_OPERATIONS: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/reset',
    summary: 'Start an episode',
    body: { schema: EnvResetRequestSchema, required: false },
    responses: { 200: { description: 'First observation', schema: EnvStepReplySchema }, ...envErrors },
  },
  {
    method: 'post',
    path: '/step',
    summary: 'Run code or submit the answer',
    body: { schema: EnvStepRequestSchema, required: true },
    responses: { 200: { description: 'Observation', schema: EnvStepReplySchema }, ...envErrors },
  },
  {
    method: 'get',
    path: '/state',
    summary: 'Episode state',
    query: StateQuerySchema,
    responses: { 200: { description: 'State', schema: StateReplySchema }, ...envErrors },
  },
  {
    method: 'post',
    path: '/close',
    summary: 'End an episode and free its sandbox',
    body: { schema: CloseRequestSchema, required: true },
    responses: { 200: { description: 'Closed', schema: CloseReplySchema }, ...envErrors },
  },
  ...OPS_OPERATIONS,
  {
    method: 'get',
    path: '/metadata',
    summary: "Environment metadata (OpenEnv's EnvironmentMetadata)",
    responses: { 200: { description: 'Metadata', schema: EnvMetadataSchema } },
  },
  {
    method: 'get',
    path: '/capabilities',
    summary: 'FATHOM additions to the metadata: action space, capacity, limits, transports, MCP tools',
    responses: { 200: { description: 'Capabilities', schema: EnvCapabilitiesSchema } },
  },
  {
    method: 'get',
    path: '/schema',
    summary: 'JSON Schemas of action, observation, state',
    responses: { 200: { description: 'Schemas', schema: SchemasReplySchema } },
  },
  {
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1', schema: z.record(z.string(), z.unknown()) } },
  },
  {
    method: 'get',
    path: '/',
    summary: 'What this service is and how to reach it, as a page',
    responses: { 200: { description: 'HTML', schema: z.string(), contentType: 'text/html' } },
  },
  {
    method: 'post',
    path: '/v1/chat/completions',
    summary:
      'OpenAI-compatible chat completion run as one RLM episode: the document (one earlier user message, or a ' +
      'text or file part before the question) becomes `ctx`, the last user text is the question. A conversation ' +
      "that opens with one of FATHOM's own system prompts (a FATHOM client driving the episode, e.g. `fathom eval " +
      "--policy openai:…`) gets the model's next turn instead",
    description:
      'Needs `Authorization: Bearer <API_TOKEN>` when API_TOKEN is set. Generation parameters other than those ' +
      'listed with a non-neutral value are 400. Reply: `chat.completion` whose content is the answer, plus the ' +
      'additive `fathom` field. With `stream: true`: `chat.completion.chunk` events, one per finished turn ' +
      '(`fathom.turn`), then the answer as `delta.content`, the finish_reason chunk (with `fathom`), the usage ' +
      'chunk when asked, then `data: [DONE]`.',
    security: 'bearer',
    body: { schema: ChatRequestSchema, required: true },
    responses: {
      200: {
        description: 'The completion (application/json), or its event stream (text/event-stream)',
        schema: ChatCompletionReplySchema,
      },
      ...openAiErrors,
    },
  },
  {
    method: 'get',
    path: '/v1/models',
    summary: 'The served model (FATHOM_MODEL_ID), OpenAI-shaped',
    security: 'bearer',
    responses: { 200: { description: 'Models', schema: ModelsReplySchema } },
  },
  {
    method: 'post',
    path: '/mcp',
    summary:
      'MCP over JSON-RPC 2.0: initialize, tools/list, tools/call (run_code, submit_answer), openenv/session/create|close',
    body: { schema: JsonRpcRequestSchema, required: true },
    responses: {
      200: { description: 'JSON-RPC response, errors included (-32700 parse error, -32600 invalid request)' },
      202: { description: 'Notification accepted' },
      413: { description: 'Body over the size limit (with a JSON-RPC error)' },
      429: { description: 'MAX_BODY_BYTES_IN_FLIGHT held (with a JSON-RPC error)' },
    },
  },
];

/** GET /openapi.json: the HTTP API as OpenAPI 3.1 (whose schema dialect is JSON Schema 2020-12, as zod emits). */
export function openApiDocument(version: string): JsonSchema {
  return buildOpenApiDocument({
    title: 'FATHOM env-service',
    version,
    description:
      'OpenEnv-compatible environment: a JavaScript REPL over a long document (`ctx`). HTTP sessions are named by ' +
      '`episode_id` (returned by /reset, sent in the /step body and as a /state query parameter); without it ' +
      '/step runs in a scratch episode and /state is a fresh environment, as in OpenEnv. WebSocket /ws holds one ' +
      'episode per connection; /mcp speaks JSON-RPC 2.0 over HTTP POST and WebSocket.',
    operations: ENV_OPERATIONS,
    components: {
      ResetRequest: EnvResetRequestSchema,
      StepRequest: EnvStepRequestSchema,
      Action: EnvActionSchema,
      StepReply: EnvStepReplySchema,
      Observation: EnvObservationSchema,
      State: EnvStateSchema,
      Metadata: EnvMetadataSchema,
      Capabilities: EnvCapabilitiesSchema,
      Error: ErrorReplySchema,
      OpenAiError: OpenAiErrorReplySchema,
    },
    bearerSchemes: ['bearer'],
  });
}
