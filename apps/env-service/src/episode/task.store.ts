import { Rng, type EnvResetRequest, type Split, type Task } from '@fathom/contracts';
import { estimateTokens, readTasksJsonl } from '@fathom/tasks';
import { randomInt } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { EnvError } from '../errors';

/**
 * The part of a task an episode needs. Inline tasks (given on reset) have id "inline" and split "inline"; an ad-hoc
 * one (OpenEnv REPLEnv's `reset(context=…, task_prompt=…)`, or a scratch episode) has no gold `answer` and is unscored.
 */
export type EpisodeTask = Pick<Task, 'id' | 'question' | 'context' | 'aliases' | 'context_tokens'> & {
  split: string;
  answer: string | null;
};

/** The task of a scratch episode (a stateless HTTP step, an MCP tool call without a session): no document, unscored. */
export const SCRATCH_TASK: EpisodeTask = {
  id: 'scratch',
  split: 'inline',
  question: '',
  context: '',
  answer: null,
  aliases: [],
  context_tokens: 0,
};

export const TASK_STORE = Symbol('TaskStore');

/** Tasks by split and id, from the configured JSONL dataset (file or folder), plus inline tasks built on reset. */
export class TaskStore {
  private readonly byId = new Map<string, Task>();
  private readonly bySplit = new Map<Split, Task[]>();

  constructor(tasks: Iterable<Task>) {
    for (const task of tasks) {
      this.byId.set(task.id, task);
      const list = this.bySplit.get(task.split) ?? [];
      list.push(task);
      this.bySplit.set(task.split, list);
    }
  }

  /** Loads a JSONL file or every *.jsonl file of a folder; no path gives an empty store (inline tasks only). */
  static async load(path: string | undefined): Promise<TaskStore> {
    if (path === undefined) return new TaskStore([]);
    const files = (await stat(path)).isDirectory()
      ? (await readdir(path))
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(path, f))
      : [path];
    const tasks: Task[] = [];
    for (const file of files) for await (const task of readTasksJsonl(file)) tasks.push(task);
    return new TaskStore(tasks);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Resolves the task a reset asks for (see EnvResetRequestSchema for the order of precedence). */
  select(request: EnvResetRequest): EpisodeTask {
    if (request.context !== undefined) {
      return {
        id: 'inline',
        split: 'inline',
        question: request.question ?? request.task_prompt ?? '',
        context: request.context,
        answer: request.answer ?? request.expected_answer ?? null,
        aliases: request.aliases ?? [],
        context_tokens: estimateTokens(request.context),
      };
    }
    if (request.task_id !== undefined) {
      const task = this.byId.get(request.task_id);
      if (!task || (request.split !== undefined && task.split !== request.split)) {
        const where = request.split === undefined ? '' : ` in split "${request.split}"`;
        throw new EnvError('TASK_NOT_FOUND', `task "${request.task_id}" not found${where}`);
      }
      return task;
    }
    const split = request.split ?? 'train';
    const tasks = this.bySplit.get(split);
    if (!tasks || tasks.length === 0) {
      const hint = this.size === 0 ? ' (no dataset configured: set DATASET_PATH, or give an inline task)' : '';
      throw new EnvError('TASK_NOT_FOUND', `no tasks in split "${split}"${hint}`);
    }
    // The same seed always picks the same task (FATHOM's one seeded generator); no seed, a fresh draw.
    return request.seed === undefined ? tasks[randomInt(tasks.length)] : new Rng(Math.floor(request.seed)).pick(tasks);
  }
}
