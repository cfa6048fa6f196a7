import type { SftExample, SftSubcall, Task } from '@fathom/contracts';
import type { SandboxPool } from '@fathom/sandbox';
import { DEFAULT_PROMPT_STYLE, renderCompletion, renderConversation, renderSubcallPrompt } from '../prompt';
import type { PromptStyle, Segment } from '../prompt';
import { drawStyle } from './code';
import { runTeacherEpisode, type SftSkip, type TeacherEpisodeResult } from './episode';
import { TeacherError } from './errors';
import { DEFAULT_TEACHER_MIX, drawStrategies, validateMix, type TeacherMix } from './mix';
import { drawStream } from './rng';
import { BUG_KINDS, breakCell, type BugKind } from './repair';
import { STRATEGIES_BY_TYPE, type TeacherStrategy } from './strategies';
import { teacherView } from './view';

/** Default share of examples whose first cell is played broken first (a repair turn). */
export const DEFAULT_REPAIR_SHARE = 0.15;

export interface BuildSftOptions {
  /** The sandbox the teacher's code runs in (the same REPL rollouts use). */
  pool: Pick<SandboxPool, 'openEpisode'>;
  /** Which strategies write examples, how often. Default: DEFAULT_TEACHER_MIX. */
  mix?: TeacherMix;
  /** Seed of the strategy draws. Default 0. */
  seed?: number;
  /** Examples per task, each by a different strategy drawn from the mix. Default 1. */
  perTask?: number;
  /** Ignore the mix and let every strategy of the task's type write an example (to measure strategies). */
  everyStrategy?: boolean;
  /** Tasks whose episodes run at the same time (output order stays the task order). Default 4. */
  concurrency?: number;
  /** Share of examples, in [0, 1], that open with a broken cell and its error, then the corrected cell. Default 0.15. */
  repairShare?: number;
  /** Called for each (task, strategy) that yields no example, with the reason. */
  onSkip?: (skip: SftSkip) => void;
}

/**
 * Teacher SFT examples for `tasks`, in task order (strategies of one task in the order drawn). Deterministic:
 * the same tasks, mix and seed give the same examples — a strategy draw depends only on (seed, task id),
 * and the sandbox runs the same code over the same context. Up to `concurrency` tasks run at once.
 */
export async function* buildSftExamples(
  tasks: Iterable<Task> | AsyncIterable<Task>,
  options: BuildSftOptions,
): AsyncGenerator<SftExample> {
  const mix = validateMix(options.mix ?? DEFAULT_TEACHER_MIX);
  const seed = options.seed ?? 0;
  const perTask = options.perTask ?? 1;
  if (!(Number.isInteger(perTask) && perTask >= 1))
    throw new TeacherError('INVALID_MIX', `perTask must be a positive integer, got ${perTask}`);
  const concurrency = options.concurrency ?? 4;
  if (!(Number.isInteger(concurrency) && concurrency >= 1))
    throw new TeacherError('INVALID_MIX', `concurrency must be a positive integer, got ${concurrency}`);
  const repairShare = options.repairShare ?? DEFAULT_REPAIR_SHARE;
  if (!(repairShare >= 0 && repairShare <= 1))
    throw new TeacherError('INVALID_MIX', `repairShare must be in [0, 1], got ${repairShare}`);
  const runTask = async (task: Task): Promise<TeacherEpisodeResult[]> => {
    const strategies: readonly TeacherStrategy[] = options.everyStrategy
      ? STRATEGIES_BY_TYPE[task.type]
      : drawStrategies(mix, task.type, perTask, drawStream(seed, task.id));
    const results: TeacherEpisodeResult[] = [];
    for (const strategy of strategies)
      results.push(
        await runTeacherEpisode(strategy, task, options.pool, drawEpisode(strategy, task, seed, repairShare)),
      );
    return results;
  };
  const emit = function* (results: TeacherEpisodeResult[]): Generator<SftExample> {
    for (const result of results) {
      if (result.kind === 'example') yield result.example;
      else options.onSkip?.(result.skip);
    }
  };
  const inFlight: Promise<TeacherEpisodeResult[]>[] = [];
  for await (const task of tasks) {
    const running = runTask(task);
    // Marked handled now: a later task may fail while an earlier one is awaited; it rethrows when its turn comes.
    running.catch(() => undefined);
    inFlight.push(running);
    if (inFlight.length >= concurrency) yield* emit(await (inFlight.shift() as Promise<TeacherEpisodeResult[]>));
  }
  while (inFlight.length > 0) yield* emit(await (inFlight.shift() as Promise<TeacherEpisodeResult[]>));
}

/**
 * The code style and repair bug of one (task, strategy), from a stream of (seed, task id, strategy name) alone: the
 * same example whatever else is drawn. A bug is drawn among those that fit the strategy's first cell.
 */
export function drawEpisode(
  strategy: TeacherStrategy,
  task: Task,
  seed: number,
  repairShare: number,
): { style: ReturnType<typeof drawStyle>; bug?: BugKind } {
  const uniform = drawStream(seed, `${task.id}\u0000${strategy.name}`);
  const style = drawStyle(uniform);
  const view = teacherView(task);
  if (view === null || uniform() >= repairShare) return { style };
  const first = strategy.next(view, style, []);
  const fitting = BUG_KINDS.filter((kind) => first !== null && breakCell(first.code, kind) !== null);
  const u = uniform();
  return fitting.length === 0 ? { style } : { style, bug: fitting[Math.floor(u * fitting.length)] };
}

/**
 * An SFT example as the model trains on it: the task's prompt, then each turn and observation, rendered by
 * THE prompt renderer — so `preflightPromptShapes(renderSftExample(e, task, style), renderPrompt(task, style))`
 * holds by construction, and fails if anything drifts.
 */
export function renderSftExample(
  example: SftExample,
  task: Task,
  style: PromptStyle = DEFAULT_PROMPT_STYLE,
): Segment[] {
  if (example.task_id !== task.id)
    throw new TeacherError('TASK_MISMATCH', `example of ${example.task_id}, task ${task.id}`);
  return renderConversation(
    { question: task.question, context: task.context, contextTokens: task.context_tokens },
    example.turns,
    style,
  );
}

/** A sub-call as an SFT example: the sub-call prompt and the teacher's answer (trained on). */
export function renderSftSubcall(subcall: SftSubcall): Segment[] {
  return [...renderSubcallPrompt(subcall.question, subcall.chunk), ...renderCompletion(subcall.answer)];
}
