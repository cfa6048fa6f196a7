import type { RewardTrajectory } from '@fathom/contracts';
import { scoreTrajectory } from '@fathom/rewards';
import { estimateTokens } from '@fathom/tasks';
import type { Episode } from './episode';

/** Both null for an episode without a gold answer (ad hoc or scratch), which is not scored. */
export interface AnswerScore {
  reward: number | null;
  correct: boolean | null;
}

/**
 * Scores a finished episode with the full FATHOM reward (libs/rewards, default config). The env sees actions, not
 * the model's raw text, so the trajectory is rebuilt from them: each code step as a fenced block, the answer as an
 * `<answer>` turn (an empty final turn when the episode ended without one), root tokens as the client reported them
 * on every step (`completion_tokens`) or else estimated from that text, and the llm() calls the sandbox executed.
 */
export class AnswerScorer {
  score(episode: Episode, answer: string | null): AnswerScore {
    const gold = episode.task.answer;
    if (gold === null) return { reward: null, correct: null };
    const turns = [
      ...episode.codeSteps.map((code) => ({ completion: `\`\`\`js\n${code}\n\`\`\`` })),
      { completion: answer === null ? '' : `<answer>${answer}</answer>` },
    ];
    const executed = episode.llmCalls.filter((call) => call.error === undefined);
    const trajectory: RewardTrajectory = {
      turns,
      llmCalls: executed.map((call) => ({
        depth: call.depth,
        promptTokens: call.promptTokens,
        completionTokens: call.completionTokens,
        ...(call.chunkChars > 0 ? { chunkChars: call.chunkChars } : {}),
      })),
      tokens: {
        completion:
          reportedTokens(episode.stepTokens) ?? turns.reduce((sum, t) => sum + estimateTokens(t.completion), 0),
        subcall: executed.reduce((sum, call) => sum + call.promptTokens + call.completionTokens, 0),
      },
    };
    const result = scoreTrajectory(trajectory, { ...episode.task, answer: gold });
    return { reward: result.total, correct: result.components.correctness === 1 };
  }
}

/** The root's sampled tokens as the client reported them, when it reported them on every step; else null. */
function reportedTokens(steps: readonly (number | null)[]): number | null {
  if (steps.length === 0 || steps.some((tokens) => tokens === null)) return null;
  return steps.reduce<number>((sum, tokens) => sum + (tokens ?? 0), 0);
}
