import { z } from 'zod';
import {
  chatMessagesOf,
  IM_END,
  IM_START,
  renderPrompt,
  renderSubcallPrompt,
  segmentsText,
  type Segment,
} from '@fathom/rlm';
import { OpenAiError } from './openai.errors';

/**
 * An OpenAI chat-completions request, read as one RLM episode (a document, `ctx`, and a question), or as one turn of
 * an episode its client drives.
 *
 * The episode rule, in full:
 * - The last message is the user's, and its last text part is the question (a string content is one text part).
 * - Every other text or file part of every user message is a document candidate; there must be exactly one. So the
 *   document is either an earlier user message, or a second part of the question's message (a text part before the
 *   question, or a file part `{type: "file", file: {filename?, file_data: "data:text/plain;base64,…"}}`).
 * - system, developer and assistant messages are accepted and not used: the episode has its own system prompt, and
 *   earlier answers do not enter it. tool and function messages, and parts other than text and file, are refused.
 * - No candidate, more than one, an empty document or question, a question over QUESTION_MAX_CHARS: HTTP 400
 *   naming the problem. A document over MAX_DOCUMENT_BYTES (UTF-8): HTTP 413.
 *
 * The turn rule: a request whose first message is a system message holding one of FATHOM's own system prompts (a
 * root episode's, either style, or an llm() sub-call's) comes from a FATHOM client that runs the episode itself
 * (`fathom eval --policy openai:…`, whose REPL holds the document): its messages are rendered back to the ChatML
 * prompt they came from, and the model writes the next assistant turn of it, with no episode run here.
 */
interface ChatRequestCommon {
  model: string | undefined;
  stream: boolean;
  includeUsage: boolean;
  /** Lowers the tokens one turn of the root episode (or the one turn) may generate. */
  maxTokens: number | undefined;
  temperature: number | undefined;
  seed: number | undefined;
  /** Up to 4 strings; the reply's content ends before the first of them that it holds. */
  stop: string[];
}

export type ChatRequest = ChatRequestCommon &
  (
    | {
        kind: 'episode';
        document: string;
        /** Where the document came from, as an OpenAI param path (`messages[0].content`, `messages[1].content[0]`). */
        documentSource: string;
        question: string;
      }
    | {
        kind: 'turn';
        /** The ChatML prompt, ending with the open assistant header. */
        prompt: string;
      }
  );

/** A question longer than this is almost surely the document sent last; the prompt shows the question whole. */
export const QUESTION_MAX_CHARS = 4_000;

/**
 * OpenAI parameters FATHOM does not implement, each with the test of a value that asks for them (absent, null and
 * the neutral value are accepted). Such a request is refused with the parameter named, never silently degraded.
 */
const UNSUPPORTED: Record<string, (value: unknown) => boolean> = {
  n: (v) => v !== 1,
  tools: (v) => !(Array.isArray(v) && v.length === 0),
  tool_choice: (v) => v !== 'none',
  functions: (v) => !(Array.isArray(v) && v.length === 0),
  function_call: (v) => v !== 'none',
  response_format: (v) => (v as { type?: unknown }).type !== 'text',
  logprobs: (v) => v !== false,
  top_logprobs: () => true,
  logit_bias: (v) => typeof v !== 'object' || Object.keys(v as object).length > 0,
  top_p: (v) => v !== 1,
  presence_penalty: (v) => v !== 0,
  frequency_penalty: (v) => v !== 0,
  modalities: (v) => !(Array.isArray(v) && v.every((m) => m === 'text')),
  audio: () => true,
  prediction: () => true,
  reasoning_effort: () => true,
  web_search_options: () => true,
};

/** Accepted and without effect here. */
const IGNORED = ['user', 'metadata', 'store', 'service_tier', 'parallel_tool_calls'];

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const FilePart = z.object({
  type: z.literal('file'),
  file: z.object({
    filename: z.string().optional(),
    file_data: z.string().optional(),
    file_id: z.string().optional(),
  }),
});
type Part = z.infer<typeof TextPart> | z.infer<typeof FilePart>;

const MessageSchema = z.object({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
});

/** The request fields read here; others are ignored or refused by name (`UNSUPPORTED`, `IGNORED`). */
export const ChatRequestSchema = z.object({
  model: z.string().min(1).optional(),
  messages: z.array(z.unknown()).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  stream_options: z.object({ include_usage: z.boolean().optional() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().min(0).max(2).nullish(),
  seed: z.number().int().nullish(),
  stop: z
    .union([z.string().min(1), z.array(z.string().min(1)).max(4)], {
      error: 'must be a non-empty string or an array of at most 4 non-empty strings',
    })
    .nullish(),
});

/** `messages.0.content` → `messages[0].content`, as OpenAI names params. */
function paramPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, at: (string | number)[]): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const param = paramPath([...at, ...issue.path]);
  throw new OpenAiError('INVALID_REQUEST', `${param || 'body'}: ${issue.message}`, param || null);
}

/** Validates a /v1/chat/completions body and finds its document and question (the rule above). */
export function parseChatRequest(body: unknown, maxDocumentBytes: number): ChatRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new OpenAiError('INVALID_REQUEST', 'the request body must be a JSON object');
  const fields = body as Record<string, unknown>;
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || value === null) continue;
    // Own keys only: a body's "__proto__", "constructor" or "toString" must not find Object.prototype's.
    const unsupported = Object.hasOwn(UNSUPPORTED, key) ? UNSUPPORTED[key] : undefined;
    if (unsupported?.(value))
      throw new OpenAiError(
        'UNSUPPORTED_PARAMETER',
        `${key}=${JSON.stringify(value)} is not supported: a completion here is one RLM episode with one text answer`,
        key,
      );
    if (unsupported === undefined && !IGNORED.includes(key) && !Object.hasOwn(ChatRequestSchema.shape, key))
      throw new OpenAiError('UNSUPPORTED_PARAMETER', `unrecognized request argument: ${key}`, key);
  }
  const request = parseWith(ChatRequestSchema, fields, []);
  const messages = request.messages.map((m, i) => parseWith(MessageSchema, m, ['messages', i]));
  const common: ChatRequestCommon = {
    model: request.model,
    stream: request.stream ?? false,
    includeUsage: request.stream_options?.include_usage ?? false,
    maxTokens: request.max_completion_tokens ?? request.max_tokens ?? undefined,
    temperature: request.temperature ?? undefined,
    seed: request.seed ?? undefined,
    stop: typeof request.stop === 'string' ? [request.stop] : (request.stop ?? []),
  };
  const [first] = messages;
  if (first.role === 'system' && typeof first.content === 'string' && FATHOM_SYSTEM_PROMPTS.has(first.content))
    return { ...common, kind: 'turn', prompt: turnPrompt(messages) };
  return { ...common, kind: 'episode', ...documentAndQuestion(messages, maxDocumentBytes) };
}

/** `text` cut before the first of `stop` that it holds (OpenAI's `stop`: the stop string is not returned). */
export function cutAtStop(text: string, stop: readonly string[]): string {
  const at = Math.min(...stop.map((s) => text.indexOf(s)).filter((i) => i >= 0));
  return Number.isFinite(at) ? text.slice(0, at) : text;
}

/** The system prompts FATHOM's own prompts open with: a root episode's, in either style, and an llm() read's. */
const FATHOM_SYSTEM_PROMPTS: ReadonlySet<string> = (() => {
  const task = { question: '?', context: '', contextTokens: 0 };
  const systemOf = (segments: Segment[]) => chatMessagesOf(segmentsText(segments))[0].content;
  return new Set([
    systemOf(renderPrompt(task, { system: 'full', previewChars: 0 })),
    systemOf(renderPrompt(task, { system: 'compact', previewChars: 0 })),
    systemOf(renderSubcallPrompt('?', undefined)),
  ]);
})();

/**
 * A FATHOM conversation's messages rendered back to its ChatML prompt (the inverse of the client's
 * `chatMessagesOf`), ending with the header of the assistant turn to write. Every message must be a system, user or
 * assistant message of text, and the last the user's.
 */
function turnPrompt(messages: z.output<typeof MessageSchema>[]): string {
  const rendered = messages.map((message, i) => {
    if (message.role !== 'system' && message.role !== 'user' && message.role !== 'assistant')
      throw new OpenAiError(
        'INVALID_REQUEST',
        `messages[${i}] has role "${message.role}": a FATHOM turn holds system, user and assistant messages`,
        `messages[${i}].role`,
      );
    if (typeof message.content !== 'string')
      throw new OpenAiError(
        'INVALID_REQUEST',
        `messages[${i}].content must be a string in a FATHOM turn`,
        `messages[${i}].content`,
      );
    return `${IM_START}${message.role}\n${message.content}${IM_END}\n`;
  });
  const last = messages.length - 1;
  if (messages[last].role !== 'user')
    throw new OpenAiError(
      'INVALID_REQUEST',
      `the last message must be the user's; messages[${last}] has role "${messages[last].role}"`,
      `messages[${last}].role`,
    );
  return `${rendered.join('')}${IM_START}assistant\n`;
}

interface Candidate {
  where: string;
  part: Part;
}

function documentAndQuestion(
  messages: z.output<typeof MessageSchema>[],
  maxDocumentBytes: number,
): { document: string; documentSource: string; question: string } {
  const last = messages.length - 1;
  if (messages[last].role !== 'user')
    throw new OpenAiError(
      'INVALID_REQUEST',
      `the last message must be the user's question; messages[${last}] has role "${messages[last].role}"`,
      `messages[${last}].role`,
    );
  const candidates: Candidate[] = [];
  messages.forEach((message, i) => {
    if (message.role === 'tool' || message.role === 'function')
      throw new OpenAiError(
        'UNSUPPORTED_PARAMETER',
        `messages[${i}] has role "${message.role}": tools are not supported`,
        `messages[${i}].role`,
      );
    if (message.role === 'user') candidates.push(...userParts(message.content, i));
  });
  const questionAt = candidates.findLastIndex((c) => c.where.startsWith(`messages[${last}]`) && c.part.type === 'text');
  if (questionAt < 0)
    throw new OpenAiError(
      'INVALID_REQUEST',
      `the last user message (messages[${last}]) has no text part; its last text part is the question`,
      `messages[${last}].content`,
    );
  const question = (candidates.splice(questionAt, 1)[0].part as z.infer<typeof TextPart>).text.trim();
  if (question.length === 0)
    throw new OpenAiError(
      'INVALID_REQUEST',
      'the question (the last text of the last user message) is empty',
      'messages',
    );
  if (question.length > QUESTION_MAX_CHARS)
    throw new OpenAiError(
      'INVALID_REQUEST',
      `the question (the last text of the last user message) is ${question.length} characters, over ${QUESTION_MAX_CHARS}: ` +
        'put the document first and the question last',
      `messages[${last}].content`,
    );
  if (candidates.length === 0)
    throw new OpenAiError(
      'INVALID_REQUEST',
      'no document: send it as an earlier user message, or as a text or file part before the question in the last ' +
        'user message',
      'messages',
    );
  if (candidates.length > 1)
    throw new OpenAiError(
      'INVALID_REQUEST',
      `ambiguous document: ${candidates.length} user texts or files besides the question ` +
        `(${candidates.map((c) => c.where).join(', ')}); send exactly one document`,
      'messages',
    );
  const [{ where, part }] = candidates;
  const document = part.type === 'text' ? part.text : fileText(part, where);
  const bytes = Buffer.byteLength(document, 'utf8');
  if (bytes > maxDocumentBytes)
    throw new OpenAiError(
      'DOCUMENT_TOO_LARGE',
      `the document (${where}) is ${bytes} bytes, over the limit of ${maxDocumentBytes} bytes (MAX_DOCUMENT_BYTES)`,
      where,
    );
  if (document.trim().length === 0) throw new OpenAiError('INVALID_REQUEST', `the document (${where}) is empty`, where);
  return { document, documentSource: where, question };
}

/** A user message's content as parts, each named by its param path; a string content is one text part. */
function userParts(content: z.output<typeof MessageSchema>['content'], i: number): Candidate[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return [{ where: `messages[${i}].content`, part: { type: 'text', text: content } }];
  return content.map((raw, j) => {
    const where = `messages[${i}].content[${j}]`;
    if (raw.type !== 'text' && raw.type !== 'file')
      throw new OpenAiError(
        'UNSUPPORTED_PARAMETER',
        `${where} is a "${raw.type}" part; only "text" and "file" (text files) parts are supported`,
        `${where}.type`,
      );
    return { where, part: parseWith(raw.type === 'text' ? TextPart : FilePart, raw, ['messages', i, 'content', j]) };
  });
}

const DATA_URL = /^data:([^;,]*)(?:;[^;,]*)*?;base64,(.*)$/s;
const TEXT_TYPES = /^(text\/[\w.+-]+|application\/(json|xml|x-ndjson|jsonl|yaml|x-yaml))$/;

/** A file part's text: an inline base64 data URL of a text type, decoded as UTF-8. */
function fileText(part: z.infer<typeof FilePart>, where: string): string {
  const { file_data: data, file_id: fileId } = part.file;
  if (data === undefined)
    throw new OpenAiError(
      'UNSUPPORTED_PARAMETER',
      `${where}: ${fileId === undefined ? 'no file_data' : 'file_id references are not supported'}; send the file ` +
        'inline as file_data "data:text/plain;base64,…"',
      `${where}.file`,
    );
  const match = DATA_URL.exec(data);
  if (match === null)
    throw new OpenAiError(
      'INVALID_REQUEST',
      `${where}.file.file_data must be a base64 data URL ("data:text/plain;base64,…")`,
      `${where}.file.file_data`,
    );
  const mime = match[1].toLowerCase() || 'text/plain';
  if (!TEXT_TYPES.test(mime))
    throw new OpenAiError(
      'UNSUPPORTED_PARAMETER',
      `${where}: only text files are supported (got ${mime})`,
      `${where}.file.file_data`,
    );
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(match[2], 'base64'));
  } catch {
    throw new OpenAiError('INVALID_REQUEST', `${where}: the file is not UTF-8 text`, `${where}.file.file_data`);
  }
}
