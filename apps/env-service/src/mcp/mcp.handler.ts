import {
  EnvResetRequestSchema,
  EpisodeIdSchema,
  type EnvAction,
  type EnvResetRequest,
  type EnvStepReply,
  type JsonRpcResponse,
} from '@fathom/contracts';
import { z } from 'zod';
import type { SessionSlot } from '../episode/episode';
import { EnvError, JSONRPC, jsonRpcCodeOf, toEnvError } from '../errors';
import type { EpisodeService } from '../episode/episode.service';
import { parseInput } from '../validate';
import { SERVICE_VERSION } from '../version';

/** What the handler answers: a JSON-RPC response, or none for a notification (POST /mcp then answers 202). */
export interface McpReply {
  body?: JsonRpcResponse;
}

/**
 * The session a JSON-RPC request arrives on, when it comes over a WebSocket (/ws "mcp" messages, WebSocket /mcp):
 * tools/call without a session_id acts on its episode, and openenv/session/create (re)starts that episode.
 */
export interface McpSession {
  /** The connection's slot: the episodes it opened belong to it, and it is the caller for every tool call. */
  readonly owner: SessionSlot;
  /** The connection's open episode, or null. */
  episodeId(): string | null;
  /** Ends the connection's episode, if any, and starts a new one under the connection's capacity slot. */
  reset(request: EnvResetRequest): Promise<{ episodeId: string; reply: EnvStepReply }>;
}

type JsonRpcId = string | number | null;

/** A JSON-RPC 2.0 request or notification (no id). */
export const JsonRpcRequestSchema = z.object({
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
 * JSON-RPC 2.0 for MCP clients, over POST /mcp, WebSocket /mcp and "mcp" messages on /ws: initialize, ping,
 * tools/list, tools/call, and OpenEnv's session methods openenv/session/create (params: a reset request) and
 * openenv/session/close. Every request gets a JSON-RPC response, errors included (a request that cannot be read is
 * -32700/-32600), as OpenEnv's server answers; a notification (no `id`) gets none.
 */
export class McpHandler {
  constructor(private readonly episodes: EpisodeService) {}

  async handle(body: unknown, session: McpSession | null = null): Promise<McpReply> {
    if (Array.isArray(body)) {
      return { body: errorBody(null, JSONRPC.INVALID_REQUEST, 'batch requests are not supported') };
    }
    const parsed = JsonRpcRequestSchema.safeParse(body);
    if (!parsed.success) {
      const why = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
      return { body: errorBody(idOf(body), JSONRPC.INVALID_REQUEST, `invalid JSON-RPC request: ${why}`) };
    }
    const { id, method, params = {} } = parsed.data;
    if (id === undefined) return {};
    try {
      return { body: { jsonrpc: '2.0', id, result: await this.dispatch(method, params, session) } };
    } catch (error) {
      const envError = toEnvError(error);
      const data = { code: envError.code, ...(envError.details === undefined ? {} : { details: envError.details }) };
      return { body: errorBody(id, jsonRpcCodeOf(envError.code), envError.message, data) };
    }
  }

  private async dispatch(
    method: string,
    params: Record<string, unknown>,
    session: McpSession | null,
  ): Promise<unknown> {
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
        return this.callTool(parseInput(ToolCallSchema, params, 'params'), session);
      case 'openenv/session/create': {
        const request = parseInput(EnvResetRequestSchema, params, 'params');
        if (session !== null) {
          const { episodeId, reply } = await session.reset(request);
          return { session_id: episodeId, ...reply };
        }
        const { episode, reply } = await this.episodes.reset(request, 'mcp');
        return { session_id: episode.id, ...reply };
      }
      case 'openenv/session/close': {
        const { session_id } = parseInput(SessionCloseSchema, params, 'params');
        if (session !== null && session.episodeId() === session_id) {
          // As OpenEnv: a WebSocket's own session ends with the connection (or a new openenv/session/create).
          throw new EnvError(
            'VALIDATION_ERROR',
            `session ${session_id} belongs to this WebSocket connection; close the connection instead`,
          );
        }
        await this.episodes.close(session_id, session?.owner ?? null);
        return { session_id, closed: true };
      }
      default:
        throw new EnvError('UNKNOWN_TYPE', `unknown method "${method}"`);
    }
  }

  private async callTool(call: z.infer<typeof ToolCallSchema>, session: McpSession | null): Promise<unknown> {
    const args = call.arguments ?? {};
    let action: EnvAction;
    let argSessionId: string | undefined;
    switch (call.name) {
      case 'run_code': {
        const { code, session_id } = parseInput(RunCodeArgs, args, 'params.arguments');
        action = { code };
        argSessionId = session_id;
        break;
      }
      case 'submit_answer': {
        const { answer, session_id } = parseInput(SubmitAnswerArgs, args, 'params.arguments');
        action = { answer };
        argSessionId = session_id;
        break;
      }
      default:
        throw new EnvError('VALIDATION_ERROR', `unknown tool "${call.name}"; tools are run_code and submit_answer`);
    }
    const reply = await this.step(call.session_id ?? argSessionId ?? session?.episodeId() ?? null, action, session);
    return {
      content: [{ type: 'text', text: JSON.stringify(reply) }],
      structuredContent: reply,
      isError: reply.observation.error !== null,
    };
  }

  /**
   * A named session's episode, or, with none (no session_id and no episode on the connection), a scratch episode
   * closed after the call, as OpenEnv runs a tool call without a session on a temporary environment.
   */
  private step(sessionId: string | null, action: EnvAction, session: McpSession | null): Promise<EnvStepReply> {
    if (sessionId === null) return this.episodes.stepScratch({ action }, 'mcp');
    return this.episodes.step(sessionId, { action }, 'mcp', session?.owner ?? null);
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
