import { EnvResetRequestSchema, EpisodeIdSchema, type EnvStepReply } from '@fathom/contracts';
import { z } from 'zod';
import { EnvError, JSONRPC, jsonRpcCodeOf, toEnvError } from '../errors';
import type { EpisodeService } from '../episode/episode.service';
import { parseInput } from '../validate';
import { SERVICE_VERSION } from '../version';

/** What POST /mcp answers: an HTTP status and a JSON-RPC body (none for an accepted notification). */
export interface McpHttpReply {
  status: number;
  body?: JsonRpcResponse;
}

type JsonRpcId = string | number | null;
type JsonRpcResponse =
  | { jsonrpc: '2.0'; id: JsonRpcId; result: unknown }
  | { jsonrpc: '2.0'; id: JsonRpcId; error: { code: number; message: string; data?: unknown } };

const RequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: z.union([z.string(), z.number(), z.null()]).optional(),
  method: z.string().min(1),
  params: z.record(z.string(), z.unknown()).optional(),
});

const ToolCallSchema = z.object({
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).optional(),
  /** OpenEnv passes the session in params; plain MCP clients can only pass arguments, so both are read. */
  session_id: EpisodeIdSchema.optional(),
});
const RunCodeArgs = z.object({ code: z.string().min(1), session_id: EpisodeIdSchema.optional() }).strict();
const SubmitAnswerArgs = z.object({ answer: z.string(), session_id: EpisodeIdSchema.optional() }).strict();
const SessionCloseSchema = z.object({ session_id: EpisodeIdSchema }).strict();

const sessionIdProperty = { type: 'string', description: 'Session (episode) id from openenv/session/create' };

/** The MCP tools of this environment, as tools/list reports them. */
export const MCP_TOOLS = [
  {
    name: 'run_code',
    description:
      'Run JavaScript in the episode REPL. The document is the string `ctx`; `print(...)` shows output; ' +
      '`llm(question, chunk)` asks a sub-model about a slice. Variables persist across calls.',
    inputSchema: {
      type: 'object',
      properties: { code: { type: 'string', minLength: 1 }, session_id: sessionIdProperty },
      required: ['code'],
      additionalProperties: false,
    },
  },
  {
    name: 'submit_answer',
    description: 'Submit the final answer to the question; ends the episode and returns the reward.',
    inputSchema: {
      type: 'object',
      properties: { answer: { type: 'string' }, session_id: sessionIdProperty },
      required: ['answer'],
      additionalProperties: false,
    },
  },
] as const;

/**
 * JSON-RPC 2.0 over HTTP for MCP clients: initialize, ping, tools/list, tools/call, and OpenEnv's session methods
 * openenv/session/create (params: a reset request) and openenv/session/close. A request the server cannot read
 * (bad JSON, not JSON-RPC, batch) is HTTP 400 with a JSON-RPC error; method-level errors are HTTP 200 with a
 * JSON-RPC error, as JSON-RPC prescribes.
 */
export class McpHandler {
  constructor(private readonly episodes: EpisodeService) {}

  async handle(body: unknown): Promise<McpHttpReply> {
    if (Array.isArray(body)) {
      return { status: 400, body: errorBody(null, JSONRPC.INVALID_REQUEST, 'batch requests are not supported') };
    }
    const parsed = RequestSchema.safeParse(body);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      return { status: 400, body: errorBody(idOf(body), JSONRPC.INVALID_REQUEST, `invalid JSON-RPC request: ${why}`) };
    }
    const { id, method, params = {} } = parsed.data;
    if (id === undefined) return { status: 202 };
    try {
      return { status: 200, body: { jsonrpc: '2.0', id, result: await this.dispatch(method, params) } };
    } catch (error) {
      const envError = toEnvError(error);
      const data = { code: envError.code, ...(envError.details === undefined ? {} : { details: envError.details }) };
      return { status: 200, body: errorBody(id, jsonRpcCodeOf(envError.code), envError.message, data) };
    }
  }

  private async dispatch(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: typeof params.protocolVersion === 'string' ? params.protocolVersion : '2025-06-18',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'fathom-env', version: SERVICE_VERSION },
        };
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: MCP_TOOLS };
      case 'tools/call':
        return this.callTool(parseInput(ToolCallSchema, params, 'params'));
      case 'openenv/session/create': {
        const { episode, reply } = await this.episodes.reset(
          parseInput(EnvResetRequestSchema, params, 'params'),
          'mcp',
        );
        return { session_id: episode.id, ...reply };
      }
      case 'openenv/session/close': {
        const { session_id } = parseInput(SessionCloseSchema, params, 'params');
        await this.episodes.close(session_id);
        return { session_id, closed: true };
      }
      default:
        throw new EnvError('UNKNOWN_TYPE', `unknown method "${method}"`);
    }
  }

  private async callTool(call: z.infer<typeof ToolCallSchema>): Promise<unknown> {
    const args = call.arguments ?? {};
    let sessionId: string | undefined;
    let reply: EnvStepReply;
    switch (call.name) {
      case 'run_code': {
        const { code, session_id } = parseInput(RunCodeArgs, args, 'params.arguments');
        sessionId = this.session(call.session_id ?? session_id);
        reply = await this.episodes.step(sessionId, { action: { code } }, 'mcp');
        break;
      }
      case 'submit_answer': {
        const { answer, session_id } = parseInput(SubmitAnswerArgs, args, 'params.arguments');
        sessionId = this.session(call.session_id ?? session_id);
        reply = await this.episodes.step(sessionId, { action: { answer } }, 'mcp');
        break;
      }
      default:
        throw new EnvError('VALIDATION_ERROR', `unknown tool "${call.name}"; tools are run_code and submit_answer`);
    }
    return {
      content: [{ type: 'text', text: JSON.stringify(reply) }],
      structuredContent: reply,
      isError: reply.observation.error !== null,
    };
  }

  private session(sessionId: string | undefined): string {
    if (sessionId === undefined) {
      throw new EnvError('NO_ACTIVE_EPISODE', 'no session_id given: create one with openenv/session/create first');
    }
    return sessionId;
  }
}

function errorBody(id: JsonRpcId, code: number, message: string, data?: unknown): JsonRpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

function idOf(body: unknown): JsonRpcId {
  if (body && typeof body === 'object' && 'id' in body) {
    const id = (body as { id: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return null;
}
