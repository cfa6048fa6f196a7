import { createReadStream, createWriteStream, mkdirSync, openSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { type Task, TaskSchema } from '@fathom/contracts';
import { TasksError } from './errors';

/** One JSONL line for a task (no newline), keys in schema order whatever order the object has. */
export function serializeTask(task: Task): string {
  return JSON.stringify({
    id: task.id,
    split: task.split,
    type: task.type,
    question: task.question,
    context: task.context,
    answer: task.answer,
    aliases: task.aliases,
    context_tokens: task.context_tokens,
    needle_positions: task.needle_positions.map(({ start, end, depth }) => ({ start, end, depth })),
    variants: task.variants,
    ...(task.meta === undefined
      ? {}
      : {
          meta: {
            key: task.meta.key,
            keys: task.meta.keys,
            phrasing: { family: task.meta.phrasing.family, template: task.meta.phrasing.template },
            frames: task.meta.frames,
            subquestions: task.meta.subquestions.map(({ question, evidence, answer }) => ({
              question,
              evidence,
              answer,
            })),
          },
        }),
  });
}

function fileError(path: string, error: unknown): TasksError {
  const detail = error instanceof Error ? error.message : String(error);
  return new TasksError('FILE_ACCESS', `${path}: ${detail}`);
}

/**
 * Lines of a text file with 1-based numbers, streamed (a dataset of 200K-token contexts is hundreds of MB).
 * A final newline does not make an extra empty line. Throws TasksError(FILE_ACCESS) if the file cannot be read.
 */
export async function* readLines(path: string): AsyncGenerator<{ line: number; text: string }> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const text of lines) yield { line: ++line, text };
  } catch (error) {
    throw fileError(path, error);
  } finally {
    lines.close();
    stream.destroy();
  }
}

/**
 * Streams the tasks of a JSONL dataset, each checked against TaskSchema.
 * Throws TasksError(INVALID_TASK_LINE) naming the file and line at the first bad line — run `fathom data validate`
 * for a report of every bad line — and TasksError(FILE_ACCESS) if the file cannot be read.
 */
export async function* readTasksJsonl(path: string): AsyncGenerator<Task> {
  for await (const { line, text } of readLines(path)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new TasksError('INVALID_TASK_LINE', `${path}:${line}: bad JSON (${(error as Error).message})`);
    }
    const parsed = TaskSchema.safeParse(value);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new TasksError('INVALID_TASK_LINE', `${path}:${line}: ${first.path.join('.')}: ${first.message}`);
    }
    yield parsed.data;
  }
}

/** Resolves on 'drain' or 'error', removing both listeners (a long file would otherwise pile them up). */
function drainedOrFailed(out: NodeJS.WritableStream & { errored: Error | null }): Promise<void> {
  return new Promise((resolve) => {
    if (out.errored) return resolve();
    const done = (): void => {
      out.off('drain', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('error', done);
  });
}

/**
 * Writes tasks as JSONL (one `serializeTask` line each, "\n"-terminated) to `path`, making its folder when missing,
 * honouring stream back-pressure so memory stays at about one task. `onTask` runs after each task is queued (for
 * progress bars). Resolves with the number of tasks and bytes written once the file is flushed and closed.
 */
export async function writeTasksJsonl(
  path: string,
  tasks: Iterable<Task> | AsyncIterable<Task>,
  onTask?: (task: Task, index: number) => void,
): Promise<{ count: number; bytes: number }> {
  // Opened synchronously (its folder made first) so a bad path fails here, before any task is generated.
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'w');
  } catch (error) {
    throw fileError(path, error);
  }
  const out = createWriteStream(path, { fd, encoding: 'utf8' });
  let failure: unknown;
  out.on('error', (error) => (failure = error));
  let count = 0;
  try {
    for await (const task of tasks) {
      if (failure !== undefined || out.errored) break;
      if (!out.write(`${serializeTask(task)}\n`)) await drainedOrFailed(out);
      onTask?.(task, count);
      count++;
    }
  } finally {
    out.end();
    await once(out, 'close').catch(() => undefined);
  }
  failure ??= out.errored ?? undefined;
  if (failure !== undefined) throw fileError(path, failure);
  return { count, bytes: out.bytesWritten };
}
