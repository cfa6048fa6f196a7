import type { EpisodeTrajectory, RewardResult, Task } from '@fathom/contracts';
import type { EpisodeRecord } from '@fathom/persistence';
import { renderPrompt, type PromptStyle } from '@fathom/rlm';

/** The group an episode belongs to. */
export interface EpisodeKey {
  runId: string;
  step: number;
  groupId: string;
}

/**
 * The stored transcript of an episode: the rendered first prompt, then each turn's completion (the model's tokens:
 * trained on) and the observation fed back (not trained on), with the token counts behind the mask. The dashboard's
 * episode explorer shows it turn by turn and colours what the update trained on.
 */
export interface StoredTranscript {
  prompt: string;
  turns: {
    completion: string;
    action: EpisodeTrajectory['turns'][number]['action'];
    observation: string | null;
    completionTokens: number;
    sandboxError: string | null;
    finishReason: EpisodeTrajectory['turns'][number]['finishReason'];
    generationMs: number;
    envMs: number;
  }[];
  stopReason: EpisodeTrajectory['stopReason'];
  tokens: {
    prompt: number;
    /** Model tokens (mask 1): what the update trains on. */
    trained: number;
    /** Prompt and observation tokens (mask 0). */
    notTrained: number;
    subcall: number;
  };
}

export function transcriptOf(trajectory: EpisodeTrajectory, task: Task, style: PromptStyle): StoredTranscript {
  const prompt = renderPrompt(
    { question: task.question, context: task.context, contextTokens: task.context_tokens },
    style,
  )
    .map((s) => s.text)
    .join('');
  const trained = trajectory.mask.reduce((n, m) => n + m, 0);
  return {
    prompt,
    turns: trajectory.turns.map((t) => ({ ...t })),
    stopReason: trajectory.stopReason,
    tokens: {
      prompt: trajectory.promptTokens,
      trained,
      notTrained: trajectory.ids.length - trained,
      subcall: trajectory.tokens.subcall,
    },
  };
}

/** The Episode row of a scored trajectory. */
export function episodeRecordOf(
  key: EpisodeKey,
  trajectory: EpisodeTrajectory,
  result: RewardResult,
  task: Task,
  style: PromptStyle,
): EpisodeRecord {
  return {
    runId: key.runId,
    step: key.step,
    groupId: key.groupId,
    sampleIndex: trajectory.sampleIndex,
    taskId: task.id,
    taskType: task.type,
    contextTokens: task.context_tokens,
    policyVersion: trajectory.policyVersion,
    status: trajectory.status,
    reward: result.total,
    rewardComponents: result.components,
    llmCalls: result.diagnostics.llmCalls,
    tokens: trajectory.tokens.completion + trajectory.tokens.subcall,
    turns: trajectory.turns.length,
    answer: result.diagnostics.answer,
    goldAnswer: task.answer,
    transcript: JSON.parse(JSON.stringify(transcriptOf(trajectory, task, style))),
    recursionTree: JSON.parse(JSON.stringify(trajectory.recursionTree)),
  };
}
