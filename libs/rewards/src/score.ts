import {
  RewardTrajectorySchema,
  type RewardConfigInput,
  type RewardResult,
  type RewardTrajectory,
} from '@fathom/contracts';
import { z } from 'zod';
import { gradeAnswer, type RewardTask } from './components/correctness';
import { recursionEfficiency } from './components/recursion';
import { tokenBudgetScore } from './components/token-budget';
import { resolveRewardConfig } from './config';
import { RewardError } from './errors';
import { extractAnswer, extractCodeBlocks, lastLineAnswer, replAnswer } from './extract';
import { countLlmCallsStatic } from './llm-calls';
import { composedComponents, type EpisodeFacts } from './registry';

/** `llm()` calls of a trajectory: the executed record when there is one, else a static count of its code. */
export function countTrajectoryLlmCalls(trajectory: RewardTrajectory): {
  calls: number;
  source: 'executed' | 'static';
  unparsedCodeBlocks: number;
} {
  if (trajectory.llmCalls !== null) {
    return { calls: trajectory.llmCalls.length, source: 'executed', unparsedCodeBlocks: 0 };
  }
  let calls = 0;
  let unparsedCodeBlocks = 0;
  for (const turn of trajectory.turns) {
    for (const block of extractCodeBlocks(turn.completion)) {
      const count = countLlmCallsStatic(block);
      calls += count.calls;
      if (count.method === 'fallback') unparsedCodeBlocks++;
    }
  }
  return { calls, source: 'static', unparsedCodeBlocks };
}

/**
 * Score one trajectory. Pure and deterministic; throws only `RewardError` (INVALID_CONFIG for a bad config,
 * INVALID_TRAJECTORY for a trajectory that fails `RewardTrajectorySchema`), never because of what the
 * model wrote.
 *
 *   total = min(cap, Σ weights[name] · name + formatBonus · format)   over the components `config.weights` names
 *   cap   = wrongAnswerCap if the answer is wrong, else 1 + formatBonus   → total ∈ [0, 1 + formatBonus]
 *
 * The answer is read from the final turn only: the value its code passed to the REPL's `answer()` when a code
 * cell ended the episode (`replAnswer`; well-formed unless blank, like a single tag), else the last `<answer>`
 * tag, or without one the final turn's last line (per `config.answer.untagged`), which can be correct but never
 * earns the format bonus.
 * A gated component (`requiresCorrectAnswer`: `recursion_efficiency`) is paid only for a correct answer. Every
 * composed component is always reported, under its registered name. With
 * `config.source` `env` the total is the environment's (`trajectory.envReward`, 0 when absent) and the components,
 * still computed from the task, are diagnostics.
 *
 * @param config partial reward config, defaults filled in (`RewardConfigSchema`); validated once per object.
 */
export function scoreTrajectory(
  trajectory: RewardTrajectory,
  task: RewardTask,
  config?: RewardConfigInput,
): RewardResult {
  const cfg = resolveRewardConfig(config);
  const parsed = RewardTrajectorySchema.safeParse(trajectory);
  if (!parsed.success) throw new RewardError('INVALID_TRAJECTORY', z.prettifyError(parsed.error));
  const traj = parsed.data;

  const finalText = traj.turns.length > 0 ? traj.turns[traj.turns.length - 1].completion : '';
  const extracted = traj.replAnswer === undefined ? extractAnswer(finalText) : replAnswer(traj.replAnswer);
  let answer = extracted.answer;
  let answerSource: RewardResult['diagnostics']['answerSource'] =
    answer === null ? 'none' : traj.replAnswer === undefined ? 'tag' : 'repl';
  if (traj.replAnswer === undefined && extracted.tagCount === 0 && cfg.answer.untagged === 'last_line') {
    answer = lastLineAnswer(finalText);
    if (answer !== null) answerSource = 'last_line';
  }
  const grade = gradeAnswer(answer, task, cfg.answer.maxChars);

  const budget = tokenBudgetScore(traj.tokens, task.context_tokens, cfg.tokenBudget);
  const calls = countTrajectoryLlmCalls(traj);
  const recursionRaw = recursionEfficiency(calls.calls, cfg.recursion);

  const facts: EpisodeFacts = {
    trajectory: traj,
    task,
    config: cfg,
    extracted,
    grade,
    budget,
    llmCalls: calls.calls,
    recursionEfficiencyRaw: recursionRaw,
  };
  const components: RewardResult['components'] = {};
  let uncappedTotal = 0;
  for (const { component, weight } of composedComponents(cfg)) {
    const value = component.requiresCorrectAnswer && !grade.correct ? 0 : component.score(facts);
    if (!(value >= 0 && value <= 1)) {
      throw new RewardError('INVALID_COMPONENT', `"${component.name}" scored ${value}, outside [0, 1]`);
    }
    components[component.name] = value;
    uncappedTotal += weight * value;
  }
  const cap = grade.correct ? 1 + cfg.formatBonus : cfg.wrongAnswerCap;
  const taskTotal = Math.max(0, Math.min(uncappedTotal, cap));
  const total = cfg.source === 'env' ? (traj.envReward ?? 0) : taskTotal;

  return {
    total,
    components,
    diagnostics: {
      answer: answer === null ? null : answer.slice(0, cfg.answer.maxChars),
      answerSource,
      tagCount: extracted.tagCount,
      rejection: grade.rejection,
      matched: grade.matched,
      matchKind: grade.matchKind,
      llmCalls: calls.calls,
      callCountSource: calls.source,
      unparsedCodeBlocks: calls.unparsedCodeBlocks,
      tokensSpent: budget.spent,
      tokenBudget: budget.budget,
      recursionEfficiencyRaw: recursionRaw,
      uncappedTotal,
      capped: taskTotal < uncappedTotal,
    },
  };
}
