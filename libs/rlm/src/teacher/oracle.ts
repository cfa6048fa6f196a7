import type { SftSubcall, Task } from '@fathom/contracts';
import type { LlmHandler } from '@fathom/sandbox';
import { estimateTokens, ORACLE_UNKNOWN, oracleRead } from '@fathom/tasks';
import { planSubcall } from '../subcall';
import { TeacherError } from './errors';

/** What a leaf read answers when the chunk does not hold the evidence: the oracle reader's `ORACLE_UNKNOWN`. */
export const SUBCALL_UNKNOWN = ORACLE_UNKNOWN;

/**
 * The teacher's `llm()` handler for one episode, under the one meaning of `llm()` (`planSubcall`): a call whose chunk
 * fits the reader window is a leaf and is answered by the gold leaf reader `oracleRead(task, question, chunk)` — the
 * answer of the sub-question the chunk holds the evidence of, or "unknown" — and recorded in `subcalls` (an SFT
 * leaf example). A call with a larger chunk would be a child episode in a rollout; the teacher never answers one as
 * a leaf: it refuses it with OVERSIZED_SUBCALL (a strategy bug), kept in `refused` for the episode to rethrow.
 */
export function teacherLlmHandler(
  task: Task,
  readerWindowChars: number,
  subcalls: SftSubcall[],
  refused: TeacherError[],
): LlmHandler {
  return async ({ prompt, chunk }) => {
    if (planSubcall(chunk?.length, readerWindowChars) !== 'leaf') {
      const error = new TeacherError(
        'OVERSIZED_SUBCALL',
        `task ${task.id}: llm() chunk of ${chunk?.length} characters exceeds the ${readerWindowChars}-character reader window`,
      );
      refused.push(error);
      throw error;
    }
    const answer = oracleRead(task, prompt, chunk ?? '');
    subcalls.push(chunk === undefined ? { question: prompt, answer } : { question: prompt, chunk, answer });
    return {
      text: answer,
      promptTokens: estimateTokens(prompt) + estimateTokens(chunk ?? ''),
      completionTokens: estimateTokens(answer),
    };
  };
}
