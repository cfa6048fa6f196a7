import { Rng, type EnvResetRequest, type Split, type Task } from '@fathom/contracts';
import { estimateTokens, readTasksJsonl } from '@fathom/tasks';
import { DocCache, documentSha256 } from '@fathom/sandbox';
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
  /** The SHA-256 the service keeps an inline document under (a reset with `context_sha256`). */
  contextSha256?: string;
};

/** How a reset's document was found: sent with it (and kept by its hash, or not), or named by a kept hash. */
export type DocumentOutcome = 'stored' | 'hit' | 'miss';

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

/**
 * Tasks by split and id, from the configured JSONL dataset (file or folder), plus inline tasks built on reset, whose
 * documents it keeps by SHA-256 when the reset names one (`documents`).
 */
export class TaskStore {
  private readonly byId = new Map<string, Task>();
  private readonly bySplit = new Map<Split, Task[]>();

  constructor(
    tasks: Iterable<Task>,
    private readonly documents = new DocCache(Infinity, 0),
    private readonly onDocument: (outcome: DocumentOutcome) => void = () => undefined,
  ) {
    for (const task of tasks) {
      this.byId.set(task.id, task);
      const list = this.bySplit.get(task.split) ?? [];
      list.push(task);
      this.bySplit.set(task.split, list);
    }
  }

  /** Loads a JSONL file or every *.jsonl file of a folder; no path gives an empty store (inline tasks only). */
  static async load(
    path: string | undefined,
    documents?: DocCache,
    onDocument?: (outcome: DocumentOutcome) => void,
  ): Promise<TaskStore> {
    if (path === undefined) return new TaskStore([], documents, onDocument);
    const files = (await stat(path)).isDirectory()
      ? (await readdir(path))
          .filter((f) => f.endsWith('.jsonl'))
          .sort()
          .map((f) => join(path, f))
      : [path];
    const tasks: Task[] = [];
    for (const file of files) for await (const task of readTasksJsonl(file)) tasks.push(task);
    return new TaskStore(tasks, documents, onDocument);
  }

  get size(): number {
    return this.byId.size;
  }

  /** Resolves the task a reset asks for (see EnvResetRequestSchema for the order of precedence). */
  select(request: EnvResetRequest): EpisodeTask {
    if (request.context !== undefined || request.context_sha256 !== undefined) {
      const context = this.document(request.context, request.context_sha256);
      return {
        id: 'inline',
        split: 'inline',
        question: request.question ?? request.task_prompt ?? '',
        context,
        answer: request.answer ?? request.expected_answer ?? null,
        aliases: request.aliases ?? [],
        context_tokens: estimateTokens(context),
        // Echoed only while the document is kept, so a client never names one this replica could not serve.
        ...(request.context_sha256 !== undefined && this.documents.has(request.context_sha256)
          ? { contextSha256: request.context_sha256 }
          : {}),
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

  /** An inline reset's document: the one sent (kept under its hash when one is given), or the one a hash names. */
  private document(context: string | undefined, sha256: string | undefined): string {
    if (sha256 === undefined) return context as string;
    if (context !== undefined) {
      if (documentSha256(context) !== sha256) {
        throw new EnvError('VALIDATION_ERROR', 'context_sha256 is not the SHA-256 of the context (its UTF-8 bytes)');
      }
      // Only under its own hash, so a name always means the same text, whoever stored it.
      this.documents.set(sha256, context);
      this.onDocument('stored');
      return context;
    }
    const kept = this.documents.get(sha256);
    this.onDocument(kept === undefined ? 'miss' : 'hit');
    if (kept === undefined) {
      throw new EnvError(
        'TASK_NOT_FOUND',
        `no document with context_sha256 ${sha256} is kept on this replica (kept ones are dropped least recently used first); send the context with it`,
      );
    }
    return kept;
  }
}
