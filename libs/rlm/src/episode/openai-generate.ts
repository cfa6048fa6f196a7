import { z } from 'zod';
import { escapeRegExp } from '@fathom/contracts';
import { IM_END, IM_START } from '../prompt';
import { RolloutError } from './errors';
import type { TextGenerate, TextGenerationReply, TextGenerationRequest } from './text-policy';

/** A model served by an OpenAI-compatible server: `openai:URL#MODEL`, e.g. `openai:http://127.0.0.1:8000/v1#qwen2.5-7b`. */
export interface OpenAiEndpoint {
  /** The API base, without a trailing slash (requests go to `{baseUrl}/chat/completions`). */
  baseUrl: string;
  model: string;
}

const SPEC_PREFIX = 'openai:';
const SPEC_SHAPE = 'openai:URL#MODEL (e.g. openai:http://127.0.0.1:8000/v1#qwen2.5-7b)';

/** Parses `openai:URL#MODEL`; throws `RolloutError` (INVALID_ARGUMENT) saying what is wrong with the spec. */
export function parseOpenAiSpec(spec: string): OpenAiEndpoint {
  const fail = (why: string) => new RolloutError('INVALID_ARGUMENT', `"${spec}" is not ${SPEC_SHAPE}: ${why}`);
  if (!spec.startsWith(SPEC_PREFIX)) throw fail(`it must start with "${SPEC_PREFIX}"`);
  const body = spec.slice(SPEC_PREFIX.length);
  const hash = body.lastIndexOf('#');
  if (hash < 0) throw fail('the model is missing (add #MODEL after the URL)');
  const [url, model] = [body.slice(0, hash), body.slice(hash + 1)];
  if (model.trim() === '' || /\s/.test(model)) throw fail(`the model name "${model}" is empty or has spaces`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw fail(`"${url}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw fail(`the URL must be http or https, got ${parsed.protocol}`);
  if (parsed.search !== '' || parsed.hash !== '') throw fail('the URL must have no query or fragment');
  return { baseUrl: parsed.href.replace(/\/+$/, ''), model };
}

/** How an endpoint is named in reports and the eval database: `openai:MODEL@URL`. */
export function openAiLabel(endpoint: OpenAiEndpoint): string {
  return `openai:${endpoint.model}@${endpoint.baseUrl}`;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const CHATML_MESSAGE = new RegExp(
  `${escapeRegExp(IM_START)}(system|user|assistant)\\n([\\s\\S]*?)${escapeRegExp(IM_END)}\\n?`,
  'y',
);
const OPEN_ASSISTANT = `${IM_START}assistant\n`;

/**
 * A rendered ChatML prompt (`prompt.ts`) as chat messages: every closed `<|im_start|>role\n…<|im_end|>` becomes a
 * message, and the open assistant header that ends every FATHOM prompt is the turn the server is asked to write.
 * Anything else (text outside a message, an unknown role, a prompt that does not end in that header) is refused, so
 * a prompt is never silently changed on its way to the model.
 */
export function chatMessagesOf(prompt: string): ChatMessage[] {
  if (!prompt.endsWith(OPEN_ASSISTANT))
    throw new RolloutError('INVALID_ARGUMENT', `a chat prompt must end with "${OPEN_ASSISTANT}"`);
  const body = prompt.slice(0, -OPEN_ASSISTANT.length);
  const messages: ChatMessage[] = [];
  CHATML_MESSAGE.lastIndex = 0;
  while (CHATML_MESSAGE.lastIndex < body.length) {
    const at = CHATML_MESSAGE.lastIndex;
    const match = CHATML_MESSAGE.exec(body);
    if (match === null)
      throw new RolloutError(
        'INVALID_ARGUMENT',
        `the prompt is not ChatML at character ${at}: ${JSON.stringify(body.slice(at, at + 60))}`,
      );
    messages.push({ role: match[1] as ChatMessage['role'], content: match[2] });
  }
  return messages;
}

/** What one client has spent: the server's own `usage` figures, summed, and its requests. */
export interface OpenAiUsage {
  /** Requests that got a completion. */
  requests: number;
  /** Attempts repeated after a network error, a timeout, a 429 or a 5xx. */
  retries: number;
  promptTokens: number;
  completionTokens: number;
}

export interface OpenAiClientOptions {
  /** Sent as `Authorization: Bearer …` when set (the CLI passes `$OPENAI_API_KEY`). */
  apiKey?: string;
  /** Milliseconds one attempt may take. Default 60 000. */
  timeoutMs?: number;
  /** Further attempts after a retryable failure. Default 2. */
  maxRetries?: number;
  /** First backoff in ms, doubled per retry (a 429's Retry-After wins when given). Default 500. */
  retryDelayMs?: number;
}

/** A failed call to an endpoint; `retryable` failures are retried by the client before they surface. */
export class OpenAiEndpointError extends Error {
  override name = 'OpenAiEndpointError';
  constructor(
    message: string,
    readonly retryable: boolean,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    /** Seconds the server asked to wait (Retry-After). */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }
}

const CompletionResponseSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullable() }),
        finish_reason: z.string().nullable(),
      }),
    )
    .min(1),
  usage: z.object({ prompt_tokens: z.number().int().nonnegative(), completion_tokens: z.number().int().nonnegative() }),
});

const MAX_RETRY_DELAY_MS = 30_000;

/**
 * A client of one model on an OpenAI-compatible server (`POST {base}/chat/completions`), as a `TextGenerate` for
 * `TextEndpointPolicy`. Network errors, timeouts, 429 and 5xx answers are retried up to `maxRetries` times with
 * exponential backoff; any other 4xx fails at once. `usage` sums the server's token counts over every completion.
 */
export class OpenAiChatClient {
  readonly usage: OpenAiUsage = { requests: 0, retries: 0, promptTokens: 0, completionTokens: 0 };
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryDelayMs: number;

  constructor(
    readonly endpoint: OpenAiEndpoint,
    private readonly options: OpenAiClientOptions = {},
  ) {
    this.url = `${endpoint.baseUrl}/chat/completions`;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.maxRetries = options.maxRetries ?? 2;
    this.retryDelayMs = options.retryDelayMs ?? 500;
  }

  readonly generate: TextGenerate = async (request) => {
    const body = JSON.stringify({
      model: this.endpoint.model,
      messages: chatMessagesOf(request.prompt),
      max_tokens: request.maxTokens,
      temperature: request.temperature,
      seed: request.seed,
      stop: request.stop,
    });
    for (let attempt = 0; ; attempt++) {
      try {
        return this.reply(await this.post(body), request);
      } catch (error) {
        if (!(error instanceof OpenAiEndpointError) || !error.retryable) throw error;
        if (attempt >= this.maxRetries)
          throw new OpenAiEndpointError(
            `${error.message} (gave up after ${attempt + 1} attempt${attempt === 0 ? '' : 's'})`,
            false,
            error.status,
          );
        this.usage.retries++;
        const backoff = error.retryAfterS === undefined ? this.retryDelayMs * 2 ** attempt : error.retryAfterS * 1000;
        await new Promise((resolve) => setTimeout(resolve, Math.min(backoff, MAX_RETRY_DELAY_MS)));
      }
    }
  };

  /** One attempt: the parsed response body, or an `OpenAiEndpointError` naming the URL and what went wrong. */
  private async post(body: string): Promise<z.infer<typeof CompletionResponseSchema>> {
    const where = `POST ${this.url}`;
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.apiKey === undefined ? {} : { authorization: `Bearer ${this.options.apiKey}` }),
        },
        body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError')
        throw new OpenAiEndpointError(`${where}: no answer within ${this.timeoutMs} ms`, true);
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      throw new OpenAiEndpointError(`${where}: network error${cause}`, true);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
      throw new OpenAiEndpointError(
        `${where}: ${timedOut ? `no whole answer within ${this.timeoutMs} ms` : 'the answer broke off'}`,
        true,
      );
    }
    if (!response.ok) {
      const retryable = response.status === 429 || response.status >= 500;
      const retryAfter = Number(response.headers.get('retry-after') ?? NaN);
      throw new OpenAiEndpointError(
        `${where}: HTTP ${response.status} ${response.statusText}: ${text.slice(0, 500)}`,
        retryable,
        response.status,
        Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new OpenAiEndpointError(`${where}: the answer is not JSON: ${text.slice(0, 200)}`, false, response.status);
    }
    const parsed = CompletionResponseSchema.safeParse(json);
    if (!parsed.success)
      throw new OpenAiEndpointError(
        `${where}: not a chat completion: ${z.prettifyError(parsed.error)}`,
        false,
        response.status,
      );
    return parsed.data;
  }

  /** The first choice as a reply, cut before the first stop string (servers that echo it), with usage counted. */
  private reply(data: z.infer<typeof CompletionResponseSchema>, request: TextGenerationRequest): TextGenerationReply {
    this.usage.requests++;
    this.usage.promptTokens += data.usage.prompt_tokens;
    this.usage.completionTokens += data.usage.completion_tokens;
    const [choice] = data.choices;
    let text = choice.message.content ?? '';
    for (const stop of request.stop) {
      const at = text.indexOf(stop);
      if (at >= 0) text = text.slice(0, at);
    }
    return { text, finishReason: choice.finish_reason === 'length' ? 'length' : 'stop' };
  }
}
