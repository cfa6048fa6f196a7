import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { SftExampleSchema, SftReaderExampleSchema, type SftExample, type SftReaderExample } from '@fathom/contracts';
import {
  preflightPromptShapes,
  PromptDriftError,
  renderPrompt,
  renderSftExample,
  renderSftSubcall,
  type PromptStyle,
  type Segment,
} from '@fathom/rlm';
import { readTasksJsonl } from '@fathom/tasks';
import { z } from 'zod';
import type { SftConfig } from './config';
import { TrainingError } from './errors';

/** One rendered training conversation. */
export interface Conversation {
  /** Unique in the data set: `${taskId}#${k}` for the k-th example of a task, `…/llm${j}` for its j-th sub-call. */
  id: string;
  /** The task it was written for; the held-out split keeps a task's conversations on one side. */
  taskId: string;
  /** `text`: a plain document of a `text` data set, trained on every token. */
  kind: 'episode' | 'subcall' | 'text';
  segments: Segment[];
  /** A leaf read's chunk: with `data.extractiveReads` its answer is scored under that chunk's span constraint. */
  chunk?: string;
}

/**
 * A line of a pre-rendered conversations file: the segments exactly as trained on, and the task's prompt fields
 * so the preflight can render the rollout prompt of the same task and compare.
 */
export const ConversationLineSchema = z.strictObject({
  id: z.string().min(1),
  task_id: z.string().min(1),
  task: z.strictObject({
    question: z.string().min(1),
    context: z.string(),
    contextTokens: z.number().int().nonnegative(),
  }),
  segments: z.array(z.strictObject({ text: z.string(), trained: z.boolean() })).min(1),
});
export type ConversationLine = z.infer<typeof ConversationLineSchema>;

async function* jsonLines(path: string): AsyncGenerator<{ line: number; value: unknown }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) {
      line++;
      if (text.trim() === '') continue;
      try {
        yield { line, value: JSON.parse(text) };
      } catch (error) {
        throw new TrainingError('INVALID_DATA', `${path}:${line}: bad JSON (${(error as Error).message})`, {
          trainer: 'SFT',
        });
      }
    }
  } catch (error) {
    if (error instanceof TrainingError) throw error;
    throw new TrainingError('INVALID_DATA', `${path}: ${(error as Error).message}`, { trainer: 'SFT' });
  } finally {
    lines.close();
    stream.destroy();
  }
}

function parseLine<T>(schema: z.ZodType<T>, path: string, line: number, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new TrainingError('INVALID_DATA', `${path}:${line}: ${z.prettifyError(parsed.error)}`, { trainer: 'SFT' });
  return parsed.data;
}

/**
 * The preflight: the SFT conversation's prompt (everything before its first trained token) must equal the rollout
 * prompt rendered for the same task with the rollout's style. Throws TrainingError(PROMPT_DRIFT) with the diff.
 */
export function preflightConversation(
  id: string,
  segments: readonly Segment[],
  task: Parameters<typeof renderPrompt>[0],
  rolloutStyle: PromptStyle,
): void {
  try {
    preflightPromptShapes(segments, renderPrompt(task, rolloutStyle));
  } catch (error) {
    if (error instanceof PromptDriftError)
      throw new TrainingError('PROMPT_DRIFT', `${id}: ${error.message}`, { trainer: 'SFT', taskId: id });
    throw error;
  }
}

/**
 * Teacher examples rendered against their tasks with `promptStyle`, in the examples file's order, each followed by
 * its sub-calls when `subcalls` is on. The tasks file is streamed and only the prompt fields of the named tasks are
 * used, so a dataset of 200K-token contexts is never held whole. The first example rendered is preflighted against
 * the rollout prompt of its task.
 */
export async function readTeacherConversations(
  data: { examples: string; tasks: string; subcalls: boolean; readers?: { file: string; perEpisode: number } },
  promptStyle: PromptStyle,
  rolloutStyle: PromptStyle,
): Promise<Conversation[]> {
  const examples: { line: number; example: SftExample }[] = [];
  for await (const { line, value } of jsonLines(data.examples))
    examples.push({ line, example: parseLine(SftExampleSchema, data.examples, line, value) });
  const byTask = new Map<string, number[]>();
  examples.forEach(({ example }, i) => {
    const list = byTask.get(example.task_id) ?? [];
    list.push(i);
    byTask.set(example.task_id, list);
  });
  const rendered: Conversation[][] = new Array(examples.length);
  let preflighted = false;
  for await (const task of readTasksJsonl(data.tasks)) {
    const indices = byTask.get(task.id);
    if (!indices) continue;
    byTask.delete(task.id);
    indices.forEach((i, k) => {
      const { example } = examples[i];
      const id = `${task.id}#${k}`;
      const segments = renderSftExample(example, task, promptStyle);
      if (!preflighted) {
        preflightConversation(
          id,
          segments,
          { question: task.question, context: task.context, contextTokens: task.context_tokens },
          rolloutStyle,
        );
        preflighted = true;
      }
      const conversations: Conversation[] = [{ id, taskId: task.id, kind: 'episode', segments }];
      if (data.subcalls)
        example.subcalls.forEach((subcall, j) =>
          conversations.push({
            id: `${id}/llm${j}`,
            taskId: task.id,
            kind: 'subcall',
            segments: renderSftSubcall(subcall),
            ...(subcall.chunk === undefined ? {} : { chunk: subcall.chunk }),
          }),
        );
      rendered[i] = conversations;
    });
  }
  if (byTask.size > 0) {
    const [taskId, [first]] = byTask.entries().next().value!;
    throw new TrainingError(
      'INVALID_DATA',
      `${data.examples}:${examples[first].line}: task '${taskId}' is not in ${data.tasks}` +
        (byTask.size > 1 ? ` (nor are ${byTask.size - 1} other tasks)` : ''),
      { trainer: 'SFT' },
    );
  }
  const conversations = rendered.flat();
  if (data.readers === undefined) return conversations;
  const wanted = Math.round(data.readers.perEpisode * examples.length);
  return [...conversations, ...(await readReaderConversations(data.readers.file, wanted))];
}

/**
 * The first `wanted` reader examples of a reader JSONL, each rendered as the leaf sub-call it teaches
 * (`renderSftSubcall`: the prompt of a rollout's leaf `llm()` call, then the answer). Each is its own held-out unit
 * (`taskId` "reader/<line>"). A file with fewer lines than wanted is an error, not a silently smaller mix.
 */
export async function readReaderConversations(path: string, wanted: number): Promise<Conversation[]> {
  const out: Conversation[] = [];
  if (wanted === 0) return out;
  for await (const { line, reader } of readerLines(path)) {
    const id = `reader/${line}`;
    out.push({ id, taskId: id, kind: 'subcall', segments: renderSftSubcall(reader), chunk: reader.chunk });
    if (out.length === wanted) return out;
  }
  throw new TrainingError(
    'INVALID_DATA',
    `${path}: ${out.length} reader examples, the mix wants ${wanted} (readers.perEpisode × episodes)`,
    { trainer: 'SFT' },
  );
}

/** The reader examples of a reader JSONL (`fathom sft-data --readers-out`), each checked against the schema. */
async function* readerLines(path: string): AsyncGenerator<{ line: number; reader: SftReaderExample }> {
  for await (const { line, value } of jsonLines(path))
    yield { line, reader: parseLine(SftReaderExampleSchema, path, line, value) };
}

/** The first `limit` reader examples of a reader JSONL (all of them when `limit` is undefined). */
export async function readReaderExamples(path: string, limit?: number): Promise<SftReaderExample[]> {
  const out: SftReaderExample[] = [];
  if (limit === 0) return out;
  for await (const { reader } of readerLines(path)) {
    out.push(reader);
    if (out.length === limit) break;
  }
  return out;
}

/** The lines of a JSON-lines file of `{id, …}` objects, each checked against `schema`; an id seen before is an error. */
async function* uniqueLines<T extends { id: string }>(path: string, schema: z.ZodType<T>): AsyncGenerator<T> {
  const seen = new Set<string>();
  for await (const { line, value } of jsonLines(path)) {
    const parsed = parseLine(schema, path, line, value);
    if (seen.has(parsed.id))
      throw new TrainingError('INVALID_DATA', `${path}:${line}: duplicate id '${parsed.id}'`, { trainer: 'SFT' });
    seen.add(parsed.id);
    yield parsed;
  }
}

/** Pre-rendered conversations; every line is preflighted against the rollout prompt of its own task. */
export async function readConversationLines(path: string, rolloutStyle: PromptStyle): Promise<Conversation[]> {
  const out: Conversation[] = [];
  for await (const parsed of uniqueLines(path, ConversationLineSchema)) {
    preflightConversation(parsed.id, parsed.segments, parsed.task, rolloutStyle);
    out.push({ id: parsed.id, taskId: parsed.task_id, kind: 'episode', segments: parsed.segments });
  }
  return out;
}

/** A line of a `text` data set: one document, trained on whole; each is its own task for the held-out split. */
export const TextLineSchema = z.strictObject({ id: z.string().min(1), text: z.string().min(1) });

/** Plain documents, each a conversation of one trained segment. */
export async function readTextLines(path: string): Promise<Conversation[]> {
  const out: Conversation[] = [];
  for await (const { id, text } of uniqueLines(path, TextLineSchema))
    out.push({ id, taskId: id, kind: 'text', segments: [{ text, trained: true }] });
  return out;
}

/** The conversations a config names; teacher and pre-rendered ones preflighted against its rollout prompt style. */
export function readSftConversations(config: Pick<SftConfig, 'data' | 'promptStyle' | 'rolloutPromptStyle'>) {
  const { data } = config;
  if (data.format === 'teacher') return readTeacherConversations(data, config.promptStyle, config.rolloutPromptStyle);
  if (data.format === 'text') return readTextLines(data.texts);
  return readConversationLines(data.conversations, config.rolloutPromptStyle);
}
