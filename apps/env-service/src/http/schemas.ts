import {
  EnvActionSchema,
  EnvCapabilitiesSchema,
  EnvMetadataSchema,
  EnvObservationSchema,
  EnvResetRequestSchema,
  EnvStateSchema,
  EnvStepReplySchema,
  EnvStepRequestSchema,
} from '@fathom/contracts';
import { z } from 'zod';

type JsonSchema = Record<string, unknown>;

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

const json = (ref: string) => ({ 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } });
const errorResponses = {
  '400': { description: 'Malformed JSON', content: json('Error') },
  '403': { description: 'Episode belongs to a WebSocket connection (EPISODE_FORBIDDEN)', content: json('Error') },
  '404': { description: 'Unknown episode or task', content: json('Error') },
  '409': {
    description: 'Episode already done, or reset of an open episode_id (EPISODE_EXISTS)',
    content: json('Error'),
  },
  '413': { description: 'Body over the size limit', content: json('Error') },
  '422': { description: 'Validation error (detail lists each issue)', content: json('Error') },
  '429': { description: 'MAX_CONCURRENT_ENVS reached', content: json('Error') },
};
const openAiError = { 'application/json': { schema: { $ref: '#/components/schemas/OpenAiError' } } };
const openAiErrorResponses = {
  '400': {
    description: 'Bad JSON, no question or document, ambiguous document, unsupported parameter',
    content: openAiError,
  },
  '401': { description: 'Missing or wrong bearer token (when API_TOKEN is set)', content: openAiError },
  '404': { description: 'Another model id than FATHOM_MODEL_ID', content: openAiError },
  '413': { description: 'Document over MAX_DOCUMENT_BYTES, or body over twice that', content: openAiError },
  '429': { description: 'MAX_CONCURRENT_ENVS reached', content: openAiError },
  '502': { description: 'The episode could not run (inference endpoint or sandbox down)', content: openAiError },
};
const episodeIdParam = {
  name: 'episode_id',
  in: 'query',
  required: false,
  description: "The HTTP session's episode; without it, a fresh environment's state {episode_id: null, step_count: 0}",
  schema: { type: 'string' },
};

/** GET /openapi.json: the HTTP API as OpenAPI 3.1 (whose schema dialect is JSON Schema 2020-12, as zod emits). */
export function openApiDocument(version: string): JsonSchema {
  return {
    openapi: '3.1.0',
    info: {
      title: 'FATHOM env-service',
      version,
      description:
        'OpenEnv-compatible environment: a JavaScript REPL over a long document (`ctx`). HTTP sessions are named by ' +
        '`episode_id` (returned by /reset, sent in the /step body and as a /state query parameter); without it ' +
        '/step runs in a scratch episode and /state is a fresh environment, as in OpenEnv. WebSocket /ws holds one ' +
        'episode per connection; /mcp speaks JSON-RPC 2.0 over HTTP POST and WebSocket.',
    },
    paths: {
      '/reset': {
        post: {
          summary: 'Start an episode',
          requestBody: { required: false, content: json('ResetRequest') },
          responses: { '200': { description: 'First observation', content: json('StepReply') }, ...errorResponses },
        },
      },
      '/step': {
        post: {
          summary: 'Run code or submit the answer',
          requestBody: { required: true, content: json('StepRequest') },
          responses: { '200': { description: 'Observation', content: json('StepReply') }, ...errorResponses },
        },
      },
      '/state': {
        get: {
          summary: 'Episode state',
          parameters: [episodeIdParam],
          responses: { '200': { description: 'State', content: json('State') }, ...errorResponses },
        },
      },
      '/close': {
        post: {
          summary: 'End an episode and free its sandbox',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', properties: { episode_id: { type: 'string' } }, required: ['episode_id'] },
              },
            },
          },
          responses: { '200': { description: 'Closed' }, ...errorResponses },
        },
      },
      '/health': { get: { summary: 'Liveness', responses: { '200': { description: '{"status":"healthy"}' } } } },
      '/metadata': {
        get: {
          summary: "Environment metadata (OpenEnv's EnvironmentMetadata)",
          responses: { '200': { description: 'Metadata', content: json('Metadata') } },
        },
      },
      '/capabilities': {
        get: {
          summary: 'FATHOM additions to the metadata: action space, capacity, limits, transports, MCP tools',
          responses: { '200': { description: 'Capabilities', content: json('Capabilities') } },
        },
      },
      '/schema': {
        get: {
          summary: 'JSON Schemas of action, observation, state',
          responses: { '200': { description: 'Schemas' } },
        },
      },
      '/metrics': {
        get: { summary: 'Prometheus metrics', responses: { '200': { description: 'text/plain exposition format' } } },
      },
      '/v1/chat/completions': {
        post: {
          summary:
            'OpenAI-compatible chat completion run as one RLM episode: the document (one earlier user message, or a ' +
            'text or file part before the question) becomes `ctx`, the last user text is the question',
          description:
            'Needs `Authorization: Bearer <API_TOKEN>` when API_TOKEN is set. Request: OpenAI chat-completions ' +
            '(`model`, `messages`, `stream`, `stream_options.include_usage`, `max_tokens`/`max_completion_tokens` ' +
            '(per-turn cap), `temperature`, `seed`); other generation parameters with a non-neutral value are 400. ' +
            'Reply: `chat.completion` whose content is the answer, plus the additive `fathom` field ' +
            '`{status, stop_reason, turns, recursion_tree, tokens}`. With `stream: true`: `chat.completion.chunk` ' +
            'events, one per finished turn (`fathom.turn`), then the answer as `delta.content`, the finish_reason ' +
            'chunk (with `fathom`), the usage chunk when asked, then `data: [DONE]`.',
          security: [{ bearer: [] }],
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
          responses: {
            '200': {
              description: 'The completion (application/json), or its event stream (text/event-stream)',
              content: { 'application/json': { schema: { type: 'object' } }, 'text/event-stream': {} },
            },
            ...openAiErrorResponses,
          },
        },
      },
      '/v1/models': {
        get: {
          summary: 'The served model (FATHOM_MODEL_ID), OpenAI-shaped',
          security: [{ bearer: [] }],
          responses: { '200': { description: '{object: "list", data: [{id, object: "model", …}]}' } },
        },
      },
      '/mcp': {
        post: {
          summary:
            'MCP over JSON-RPC 2.0: initialize, tools/list, tools/call (run_code, submit_answer), openenv/session/create|close',
          responses: {
            '200': { description: 'JSON-RPC response, errors included (-32700 parse error, -32600 invalid request)' },
            '202': { description: 'Notification accepted' },
            '413': { description: 'Body over the size limit (with a JSON-RPC error)' },
          },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        ResetRequest: schema(EnvResetRequestSchema, 'input'),
        StepRequest: schema(EnvStepRequestSchema, 'input'),
        Action: schema(EnvActionSchema, 'input'),
        StepReply: schema(EnvStepReplySchema),
        Observation: schema(EnvObservationSchema),
        State: schema(EnvStateSchema),
        Metadata: schema(EnvMetadataSchema),
        Capabilities: schema(EnvCapabilitiesSchema),
        OpenAiError: {
          type: 'object',
          properties: {
            error: {
              type: 'object',
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                param: { type: ['string', 'null'] },
                code: { type: 'string' },
              },
              required: ['message', 'type', 'param', 'code'],
            },
          },
          required: ['error'],
        },
        Error: {
          type: 'object',
          properties: {
            code: { type: 'string' },
            message: { type: 'string' },
            detail: { description: 'The message, or for 422 the list of {loc, msg, type} issues' },
          },
          required: ['code', 'message', 'detail'],
        },
      },
    },
  };
}
