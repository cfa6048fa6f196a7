import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import type { Policy } from '../episode/policy';
import { IM_END, IM_START } from '../prompt';

const ChatRequestSchema = z.object({
  model: z.string(),
  messages: z.array(z.object({ role: z.enum(['system', 'user', 'assistant']), content: z.string() })).min(1),
  max_tokens: z.number().int().positive().default(128),
  temperature: z.number().nonnegative().default(1),
  seed: z.number().int().nonnegative().default(0),
  stop: z.union([z.string(), z.array(z.string())]).default([]),
});

export type ChatRequest = z.infer<typeof ChatRequestSchema>;

/** A failure the server answers with instead of a completion: an HTTP status, or a reply held back for `delayMs`. */
export type InjectedFault = { status: number } | { delayMs: number };

export interface OpenAiTestServerOptions {
  /** The model that writes the completions (a FATHOM checkpoint through `loadPolicy`, or any `Policy`). */
  policy: Policy;
  /** The model name the server answers to; others get a 404 as from OpenAI. */
  model: string;
  /** When set, requests must carry `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string;
}

/**
 * A real OpenAI-compatible HTTP server for tests, serving one FATHOM policy: `GET /v1/models` and
 * `POST /v1/chat/completions` (non-streaming, with `usage`). The messages are rendered with FATHOM's ChatML template
 * and the policy samples the assistant turn, so a client under test talks to a model over the real protocol. Faults
 * queued with `inject` answer the next requests instead (a 503, a slow reply), to test retries and timeouts.
 */
export class OpenAiTestServer {
  /** Every chat request body received, in order (faulted ones included). */
  readonly requests: ChatRequest[] = [];
  private readonly faults: InjectedFault[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: OpenAiTestServerOptions,
    /** The API base, e.g. `http://127.0.0.1:41234/v1`. */
    readonly baseUrl: string,
  ) {}

  static async start(options: OpenAiTestServerOptions): Promise<OpenAiTestServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const instance = new OpenAiTestServer(server, options, `http://127.0.0.1:${port}/v1`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void instance.handle(req, res));
    return instance;
  }

  /** The `openai:URL#MODEL` spec of this server's model. */
  get spec(): string {
    return `openai:${this.baseUrl}#${this.options.model}`;
  }

  /** Answers the next chat requests with these faults, one each, before serving completions again. */
  inject(...faults: InjectedFault[]): void {
    this.faults.push(...faults);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve, reject) => this.server.close((e) => (e ? reject(e) : resolve())));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const fail = (status: number, message: string) =>
      send(status, { error: { message, type: 'invalid_request_error' } });
    if (this.options.apiKey !== undefined && req.headers.authorization !== `Bearer ${this.options.apiKey}`)
      return fail(401, 'missing or wrong bearer key');
    if (req.method === 'GET' && req.url === '/v1/models')
      return send(200, { object: 'list', data: [{ id: this.options.model, object: 'model', owned_by: 'fathom' }] });
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions')
      return fail(404, `no route ${req.method} ${req.url}`);

    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let parsed: ReturnType<typeof ChatRequestSchema.safeParse>;
    try {
      parsed = ChatRequestSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    } catch {
      return fail(400, 'the body is not JSON');
    }
    if (!parsed.success) return fail(400, z.prettifyError(parsed.error));
    const request = parsed.data;
    this.requests.push(request);
    const fault = this.faults.shift();
    if (fault !== undefined && 'status' in fault) return fail(fault.status, `injected fault ${fault.status}`);
    if (fault !== undefined) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
    if (request.model !== this.options.model) return fail(404, `the model "${request.model}" does not exist`);
    try {
      send(200, await this.complete(request));
    } catch (error) {
      fail(400, error instanceof Error ? error.message : String(error));
    }
  }

  private async complete(request: ChatRequest) {
    const { policy, model } = this.options;
    const imEnd = policy.tokenizer.tokenId(IM_END)!;
    const text = request.messages.map((m) => `${IM_START}${m.role}\n${m.content}${IM_END}\n`).join('');
    const prompt = policy.tokenizer.encode(`${text}${IM_START}assistant\n`);
    const room = Math.min(request.max_tokens, policy.maxLength - prompt.length);
    if (room < 1) throw new Error(`the prompt's ${prompt.length} tokens fill the model's ${policy.maxLength}`);
    const [[sampled]] = await policy.sample([{ prompt, n: 1, maxNewTokens: room, seed: request.seed }], {
      temperature: request.temperature,
      topP: 1,
      topK: 0,
      stopTokens: [imEnd],
    });
    const stopped = sampled.tokens.at(-1) === imEnd;
    let content = policy.tokenizer.decode(stopped ? sampled.tokens.slice(0, -1) : sampled.tokens);
    let finishReason = stopped ? 'stop' : 'length';
    for (const stop of typeof request.stop === 'string' ? [request.stop] : request.stop) {
      const at = content.indexOf(stop);
      if (at >= 0) [content, finishReason] = [content.slice(0, at), 'stop'];
    }
    return {
      id: `chatcmpl-${this.requests.length}`,
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
      usage: {
        prompt_tokens: prompt.length,
        completion_tokens: sampled.tokens.length,
        total_tokens: prompt.length + sampled.tokens.length,
      },
    };
  }
}
