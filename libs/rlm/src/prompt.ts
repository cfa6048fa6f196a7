/**
 * THE prompt renderer. SFT examples, GRPO rollouts, llm() sub-calls and eval all render through these
 * functions, so the policy never sees one prompt shape in training and another in use (the failure FATHOM was
 * born from). A conversation is a list of segments in ChatML; `trained` marks the model's own tokens.
 *
 *   <|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{question + context metadata}<|im_end|>\n
 *   <|im_start|>assistant\n{turn 1}<|im_end|>\n<|im_start|>user\nOutput:\n{observation}<|im_end|>\n
 *   <|im_start|>assistant\n{turn 2}<|im_end|> …
 *
 * Only "{turn}<|im_end|>" is trained on; the newline after it and every header belong to the prompt.
 */

import { DEFAULT_PROMPT_STYLE, type PromptStyle } from '@fathom/contracts';
import { DEFAULT_READER_WINDOW_CHARS } from './subcall';

export { DEFAULT_PROMPT_STYLE, type PromptStyle };

export const IM_START = '<|im_start|>';
export const IM_END = '<|im_end|>';

export interface Segment {
  text: string;
  /** True for the model's own tokens (the loss is taken on them); false for prompt and observation text. */
  trained: boolean;
}

const SYSTEM_PROMPTS: Record<PromptStyle['system'], string> = {
  full: [
    'You answer a question about a long document that is not in this prompt.',
    'The document is the string `ctx` in a JavaScript REPL. Write code in a ```js block to search or slice it;',
    'you will see what it prints. The REPL keeps variables between turns and offers:',
    '- ctx: the document (a string)',
    '- question: the question above (a read-only string); copy its key into your code as a string, e.g. grep("brass lamp")',
    '- print(...values): show values in the next observation',
    '- grep(pattern, {window, limit}): the sentences of ctx that contain pattern (a string, any case, or a RegExp),',
    '  as [{text, start, end}]; window adds that many neighbouring sentences on each side',
    '- sentences(text): the sentences of a text as [{text, start, end}]; chunks(size, {text}): ctx (or text) cut into',
    '  pieces of at most size characters at sentence ends',
    '- search(query, {limit}): the sentences of ctx that share the rarest words of query, best first, as',
    "  [{text, start, end, score}]; search(question) finds the sentences about the question's key without copying it",
    '- llm(question, chunk): ask a helper model about a chunk of text; returns its answer as a string, or "unknown"',
    '  when the chunk does not say. A chunk of up',
    `  to ${DEFAULT_READER_WINDOW_CHARS} characters is read directly; a longer one is searched by a helper with this same REPL`,
    'Search and count with code; call llm() on the sentences that need reading. Each call costs tokens.',
    '- answer(value): end the episode with value as the final answer',
    'When you know the answer, call answer(value) in code, or reply with <answer>the answer</answer>.',
  ].join('\n'),
  compact:
    'ctx is the document (JS REPL); question is the question. Write ```js code; print() shows output; grep(pattern) gives matching sentences [{text, start, end}]; search(question) the sentences sharing its rarest words, best first; sentences(text), chunks(size); llm(q, chunk) asks a helper to read a chunk. End with answer(value) in code, or <answer>…</answer>.',
};

const SUBCALL_SYSTEM_PROMPT = 'Answer the question about the text briefly.';

/** What the prompt says about a task: the question and metadata of the context, never the context itself. */
export interface PromptTask {
  question: string;
  context: string;
  /** The context's size by the shared token estimator (`estimateTokens` of `@fathom/tasks`). */
  contextTokens: number;
}

function message(role: 'system' | 'user', content: string): Segment {
  return { text: `${IM_START}${role}\n${content}${IM_END}\n`, trained: false };
}

const ASSISTANT_HEADER: Segment = { text: `${IM_START}assistant\n`, trained: false };

function contextLine(task: PromptTask, style: PromptStyle): string {
  const preview = task.context.slice(0, style.previewChars).replace(/\s+/g, ' ');
  return `ctx: ${task.context.length} characters, ~${task.contextTokens} tokens. It starts: "${preview}"`;
}

/** The prompt of a root episode, up to and including the first assistant header. */
export function renderPrompt(task: PromptTask, style: PromptStyle = DEFAULT_PROMPT_STYLE): Segment[] {
  return [
    message('system', SYSTEM_PROMPTS[style.system]),
    message('user', `Question: ${task.question}\n${contextLine(task, style)}`),
    ASSISTANT_HEADER,
  ];
}

/** One model turn as trained on: the completion and the end-of-turn marker, then the (untrained) newline. */
export function renderCompletion(completion: string): Segment[] {
  return [
    { text: `${completion}${IM_END}`, trained: true },
    { text: '\n', trained: false },
  ];
}

/** The REPL's reply to a turn, followed by the next assistant header. */
export function renderObservation(observation: string): Segment[] {
  return [message('user', `Output:\n${observation}`), ASSISTANT_HEADER];
}

/** The prompt of an llm() call answered as a plain completion (the last recursion level). */
export function renderSubcallPrompt(question: string, chunk: string | undefined): Segment[] {
  const body = chunk === undefined ? question : `${question}\n\nText:\n${chunk}`;
  return [message('system', SUBCALL_SYSTEM_PROMPT), message('user', body), ASSISTANT_HEADER];
}

/** A whole conversation: prompt, then each turn's completion and (if any) its observation. */
export function renderConversation(
  task: PromptTask,
  turns: readonly { completion: string; observation?: string }[],
  style: PromptStyle = DEFAULT_PROMPT_STYLE,
): Segment[] {
  const segments = renderPrompt(task, style);
  for (const turn of turns) {
    segments.push(...renderCompletion(turn.completion));
    if (turn.observation !== undefined) segments.push(...renderObservation(turn.observation));
  }
  return segments;
}

export function segmentsText(segments: readonly Segment[]): string {
  return segments.map((s) => s.text).join('');
}
