import type { SftExample, SftSubcall, SftTurn, Task } from '@fathom/contracts';
import { isCorrect } from '@fathom/rewards';
import type { SandboxPool } from '@fathom/sandbox';
import { episodeEnd } from '../episode/ending';
import { DEFAULT_READER_WINDOW_CHARS } from '../subcall';
import type { CodeStyle } from './code';
import { TeacherError } from './errors';
import { observationText } from './observation';
import { teacherLlmHandler } from './oracle';
import { breakCell, type BugKind } from './repair';
import type { TeacherMove, TeacherStrategy } from './strategies';
import { teacherView } from './view';

/** Code cells a strategy may run (a repair turn adds one); one of them must call `answer()`. */
export const MAX_CODE_TURNS = 3;

/** Why a task got no example from a strategy. */
export interface SftSkip {
  task_id: string;
  strategy: string | null;
  reason: 'no_meta' | 'sandbox_error';
  detail: string;
}

export type TeacherEpisodeResult = { kind: 'example'; example: SftExample } | { kind: 'skip'; skip: SftSkip };

export interface TeacherEpisodeOptions {
  /** The code phrasing of this (task, strategy). */
  style: CodeStyle;
  /** Put this bug in the first cell and let the sandbox's error observation precede the corrected cell. */
  bug?: BugKind;
  /** Largest chunk a leaf llm() call reads (`planSubcall`). Default DEFAULT_READER_WINDOW_CHARS. */
  readerWindowChars?: number;
}

export const jsBlock = (code: string): string => '```js\n' + code + '\n```';

/**
 * Plays one strategy on one task in a real sandbox episode over the task's context: each code turn runs, its
 * observation is what the sandbox printed, and `llm()` calls are answered by the oracle leaf reader
 * (`teacherLlmHandler`). The cell that calls `answer(value)` ends the episode, as it ends a rollout: it is the last
 * turn, with no observation, and the example's answer is that call's value. The strategy sees only the task view
 * (question and its keys) and the observations; the gold answer is read once, after the episode, to grade it.
 *
 * With `bug`, the first cell is played broken first: it must fail in the sandbox (REPAIR_DID_NOT_FAIL otherwise),
 * its error observation is kept, and the strategy's own cells follow. Any other failing step skips the example (SFT
 * must not teach code that errors by accident); an llm() chunk above the reader window throws OVERSIZED_SUBCALL; a
 * strategy that runs out of cells without answering is a RUNAWAY_STRATEGY.
 */
export async function runTeacherEpisode(
  strategy: TeacherStrategy,
  task: Task,
  pool: Pick<SandboxPool, 'openEpisode'>,
  options: TeacherEpisodeOptions,
): Promise<TeacherEpisodeResult> {
  const view = teacherView(task);
  if (view === null || strategy.type !== task.type) {
    const detail =
      view === null
        ? 'task has no generator meta (key, sub-questions)'
        : `task is ${task.type}, strategy is for ${strategy.type}`;
    return { kind: 'skip', skip: { task_id: task.id, strategy: strategy.name, reason: 'no_meta', detail } };
  }
  const window = options.readerWindowChars ?? DEFAULT_READER_WINDOW_CHARS;
  const subcalls: SftSubcall[] = [];
  const refused: TeacherError[] = [];
  const llm = teacherLlmHandler(task, window, subcalls, refused);
  const episode = await pool.openEpisode({ ctx: task.context, ctxKey: task.id, question: task.question, llm });
  const turns: SftTurn[] = [];
  const observations: string[] = [];
  const play = async (code: string) => {
    const result = await episode.run(code);
    if (refused.length > 0) throw refused[0];
    return result;
  };
  try {
    if (options.bug !== undefined) {
      const first = strategy.next(view, options.style, []);
      const broken = first && breakCell(first.code, options.bug);
      if (!broken) throw new TeacherError('REPAIR_DID_NOT_FAIL', `${options.bug} does not fit ${strategy.name}`);
      const result = await play(broken);
      if (result.error === null || result.answer !== null || subcalls.length > 0)
        throw new TeacherError(
          'REPAIR_DID_NOT_FAIL',
          `${strategy.name} on task ${task.id}: the ${options.bug} bug did not stop the cell before it read or answered`,
        );
      turns.push({ completion: jsBlock(broken), observation: observationText(result) });
    }
    const runaway = () =>
      new TeacherError(
        'RUNAWAY_STRATEGY',
        `${strategy.name} on task ${task.id} ran ${observations.length} cells without calling answer()`,
      );
    for (;;) {
      const move: TeacherMove | null = strategy.next(view, options.style, observations);
      if (move === null) throw runaway();
      const result = await play(move.code);
      // Stricter than the episode's rule: SFT must not teach a cell that fails, even one the REPL survives.
      if (result.error !== null) {
        const detail = `${result.error.code}: ${result.error.message} (code: ${move.code})`;
        return { kind: 'skip', skip: { task_id: task.id, strategy: strategy.name, reason: 'sandbox_error', detail } };
      }
      // The episode's rule (episodeEnd), with the teacher's cells as its turns.
      const end = episodeEnd(result, observations.length + 1, MAX_CODE_TURNS);
      if (end !== null && result.answer !== null) {
        turns.push({ completion: jsBlock(move.code) });
        const example: SftExample = {
          task_id: task.id,
          type: task.type,
          strategy: strategy.name,
          robust: strategy.robust,
          turns,
          answer: result.answer,
          correct: isCorrect(result.answer, task),
          subcalls,
          ...(options.bug === undefined ? {} : { repair: options.bug }),
        };
        return { kind: 'example', example };
      }
      const observation = observationText(result);
      turns.push({ completion: jsBlock(move.code), observation });
      observations.push(observation);
      if (end !== null) throw runaway();
    }
  } finally {
    await episode.close();
  }
}
