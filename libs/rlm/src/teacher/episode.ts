import type { SftExample, SftSubcall, SftTurn, Task } from '@fathom/contracts';
import { isCorrect } from '@fathom/rewards';
import type { LlmHandler, SandboxPool } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { TeacherError, TeacherErrorCode } from './errors';
import { observationText } from './observation';
import { parseTaskQuestion, type TaskQuestion } from './question';
import type { AnyTeacherStrategy, TeacherMove } from './strategies';
import { answerSubcallAsTeacher } from './subcall';

/** Code cells a strategy may run; one of them must call `answer()` (every strategy needs at most two). */
export const MAX_CODE_TURNS = 3;

/** Why a task got no example from a strategy. */
export interface SftSkip {
  task_id: string;
  strategy: string | null;
  reason: 'unsupported_question' | 'sandbox_error';
  detail: string;
}

export type TeacherEpisodeResult = { kind: 'example'; example: SftExample } | { kind: 'skip'; skip: SftSkip };

export const jsBlock = (code: string): string => '```js\n' + code + '\n```';

function nextMove(
  strategy: AnyTeacherStrategy,
  question: TaskQuestion,
  observations: readonly string[],
): TeacherMove | null {
  // STRATEGIES_BY_TYPE pairs each strategy with questions of its own type; the caller checks the types match.
  return (strategy.next as (q: TaskQuestion, o: readonly string[]) => TeacherMove | null)(question, observations);
}

/**
 * Plays one strategy on one task in a real sandbox episode over the task's context: each code turn runs, its
 * observation is what the sandbox printed, and `llm()` calls are answered by `answerSubcallAsTeacher`. The cell
 * that calls `answer(value)` ends the episode, as it ends a rollout: it is the last turn, with no observation, and
 * the example's answer is that call's value. The strategy sees only the question and the observations; the gold
 * answer is read once, after the episode, to grade it. A step that fails in the sandbox skips the example (SFT
 * must not teach code that errors); a strategy that runs out of cells without answering is a RUNAWAY_STRATEGY.
 */
export async function runTeacherEpisode(
  strategy: AnyTeacherStrategy,
  task: Task,
  pool: Pick<SandboxPool, 'openEpisode'>,
): Promise<TeacherEpisodeResult> {
  const question = parseTaskQuestion(task.question);
  if (question === null || question.type !== task.type || strategy.type !== task.type) {
    const detail =
      question === null
        ? 'question is not in a generator form'
        : `question reads as ${question.type}, task is ${task.type}, strategy is for ${strategy.type}`;
    return {
      kind: 'skip',
      skip: { task_id: task.id, strategy: strategy.name, reason: 'unsupported_question', detail },
    };
  }
  const subcalls: SftSubcall[] = [];
  const llm: LlmHandler = async ({ prompt, chunk }) => {
    const answer = answerSubcallAsTeacher(prompt, chunk);
    subcalls.push(chunk === undefined ? { question: prompt, answer } : { question: prompt, chunk, answer });
    return {
      text: answer,
      promptTokens: estimateTokens(prompt) + estimateTokens(chunk ?? ''),
      completionTokens: estimateTokens(answer),
    };
  };
  const episode = await pool.openEpisode({ ctx: task.context, ctxKey: task.id, question: task.question, llm });
  try {
    const turns: SftTurn[] = [];
    const observations: string[] = [];
    for (;;) {
      const move = observations.length < MAX_CODE_TURNS ? nextMove(strategy, question, observations) : null;
      if (move === null)
        throw new TeacherError(
          TeacherErrorCode.RUNAWAY_STRATEGY,
          `${strategy.name} on task ${task.id} ran ${observations.length} cells without calling answer()`,
        );
      const result = await episode.run(move.code);
      if (result.error !== null) {
        const detail = `${result.error.code}: ${result.error.message} (code: ${move.code})`;
        return { kind: 'skip', skip: { task_id: task.id, strategy: strategy.name, reason: 'sandbox_error', detail } };
      }
      if (result.answer !== null) {
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
        };
        return { kind: 'example', example };
      }
      const observation = observationText(result);
      turns.push({ completion: jsBlock(move.code), observation });
      observations.push(observation);
    }
  } finally {
    await episode.close();
  }
}
