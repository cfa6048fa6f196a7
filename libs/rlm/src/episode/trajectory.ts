import {
  EPISODE_STATUSES,
  median,
  STOP_REASONS,
  tokenSequenceProblem,
  type EpisodeStatus,
  type EpisodeTrajectory,
  type LlmCallRecord,
  type RecursionTreeNode,
  type RewardTrajectory,
  type SpanRead,
  type StopReason,
  type TokenSequence,
} from '@fathom/contracts';
import type { LlmCallRecord as SandboxLlmCall } from '@fathom/sandbox';
import { estimateTokens } from '@fathom/tasks';
import { RolloutError } from './errors';

/** Every `llm()` call below `node` that returned, depth-first in call order. */
export function flattenCalls(node: RecursionTreeNode): RecursionTreeNode[] {
  const out: RecursionTreeNode[] = [];
  const visit = (n: RecursionTreeNode) => {
    for (const child of n.children) {
      if (child.error === undefined) out.push(child);
      visit(child);
    }
  };
  visit(node);
  return out;
}

/**
 * The trajectory as `@fathom/rewards` scores it: the turns' text, every executed `llm()` call (calls that failed
 * never ran and are left out), the token counts, and the value of `answer()` when a code cell ended the episode.
 * Throws `RolloutError` (NOT_SCORABLE) for an `infra_error` trajectory, which must never be scored.
 */
export function toRewardTrajectory(traj: EpisodeTrajectory): RewardTrajectory {
  if (traj.status === 'infra_error')
    throw new RolloutError(
      'NOT_SCORABLE',
      `task ${traj.taskId} sample ${traj.sampleIndex} ended in infra_error (${traj.infraError?.code ?? 'unknown'})`,
    );
  const llmCalls: LlmCallRecord[] = flattenCalls(traj.recursionTree).map((n) => ({
    depth: n.depth,
    promptTokens: n.promptTokens,
    completionTokens: n.completionTokens,
    chunkChars: n.chunkChars,
  }));
  // An episode ended by a code cell (not an <answer> tag) answered through the REPL's answer().
  const lastTurn = traj.turns.at(-1);
  const replAnswer = traj.stopReason === 'answer' && lastTurn?.action === 'code' ? traj.answer : null;
  return {
    turns: traj.turns.map((t) => ({ completion: t.completion })),
    llmCalls,
    tokens: { completion: traj.tokens.completion, subcall: traj.tokens.subcall },
    ...(replAnswer === null ? {} : { replAnswer }),
    ...(traj.envReward === undefined ? {} : { envReward: traj.envReward }),
  };
}

/**
 * One action of an episode whose client sends each action (an OpenEnv session): code run in the REPL or the final
 * answer, with the tokens the client reports having sampled for it (`completion_tokens`; null where it did not).
 */
export type ClientAction =
  | { kind: 'code'; code: string; completionTokens: number | null }
  | { kind: 'answer'; answer: string; completionTokens: number | null };

/** An episode its client drove: its actions in order, the answer it ended with, and the sandbox's llm() calls. */
export interface ClientEpisode {
  actions: readonly ClientAction[];
  answer: string | null;
  /** Every llm() call, executed or refused, in order; refused calls never ran and are left out. */
  llmCalls: readonly SandboxLlmCall[];
}

/**
 * The trajectory as `@fathom/rewards` scores it, of an episode the engine did not run because its client sent the
 * actions: the counterpart of `toRewardTrajectory`, which it follows. Only the actions are known, not the model's
 * text, so each code action is a turn holding its code as a fenced block and an answer action a turn with an
 * `<answer>` tag; an answer a code action passed to the REPL's `answer()` is the `replAnswer`, and an episode that
 * ended unanswered gets an empty final turn (no earlier turn is read as its answer). Root tokens are the client's
 * counts when it reported one for every action, else estimated from the turns' text (`estimateTokens`).
 */
export function clientRewardTrajectory(episode: ClientEpisode): RewardTrajectory {
  const turns = episode.actions.map((action) => ({
    completion: action.kind === 'code' ? `\`\`\`js\n${action.code}\n\`\`\`` : `<answer>${action.answer}</answer>`,
  }));
  const last = episode.actions.at(-1);
  const replAnswer = episode.answer !== null && last?.kind === 'code' ? episode.answer : null;
  if (episode.answer === null) turns.push({ completion: '' });
  const executed = episode.llmCalls.filter((call) => call.error === undefined);
  const reported = episode.actions.map((action) => action.completionTokens);
  const completion =
    reported.length > 0 && reported.every((tokens) => tokens !== null)
      ? reported.reduce<number>((sum, tokens) => sum + (tokens ?? 0), 0)
      : turns.reduce((sum, turn) => sum + estimateTokens(turn.completion), 0);
  return {
    turns,
    llmCalls: executed.map((call) => ({
      depth: call.depth,
      promptTokens: call.promptTokens,
      completionTokens: call.completionTokens,
      ...(call.chunkChars > 0 ? { chunkChars: call.chunkChars } : {}),
    })),
    tokens: {
      completion,
      subcall: executed.reduce((sum, call) => sum + call.promptTokens + call.completionTokens, 0),
    },
    ...(replAnswer === null ? {} : { replAnswer }),
  };
}

/**
 * The token sequences a learner trains on for one root episode, each checked (mask and log-probs against ids):
 * the root's — unless a frozen policy wrote it (`trainRoot` false) — then, only when the run trains on sub-calls,
 * every sub-call's that was kept, depth-first. All of them take the root episode's one advantage. Throws `RolloutError` (NOT_SCORABLE) for an `infra_error` trajectory and
 * (INVALID_ARGUMENT) naming the sequence whose mask or log-probs disagree with its ids.
 */
/**
 * The trained span reads of a trajectory (`trainSubcalls`): every leaf read by the trained policy's span head that kept
 * its encoded prompt, with the span it chose.
 */
export function trainingSpanReads(traj: EpisodeTrajectory): Required<SpanRead>[] {
  if (!traj.trainSubcalls || traj.status === 'infra_error') return [];
  return flattenCalls(traj.recursionTree).flatMap((node) =>
    node.read?.input === undefined ? [] : [node.read as Required<SpanRead>],
  );
}

export function trainingSequences(traj: EpisodeTrajectory): TokenSequence[] {
  if (traj.status === 'infra_error')
    throw new RolloutError('NOT_SCORABLE', `task ${traj.taskId} sample ${traj.sampleIndex} is infra_error`);
  const sequences: { where: string; seq: TokenSequence }[] =
    traj.trainRoot === false
      ? []
      : [{ where: 'root', seq: { ids: traj.ids, logprobs: traj.logprobs, mask: traj.mask } }];
  if (traj.trainSubcalls) {
    for (const [i, node] of flattenCalls(traj.recursionTree).entries()) {
      if (node.sequence !== undefined)
        sequences.push({ where: `sub-call ${i} (depth ${node.depth})`, seq: node.sequence });
    }
  }
  for (const { where, seq } of sequences) {
    const problem = tokenSequenceProblem(seq);
    if (problem !== null)
      throw new RolloutError(
        'INVALID_ARGUMENT',
        `task ${traj.taskId} sample ${traj.sampleIndex}, ${where}: ${problem}`,
      );
  }
  return sequences.map((s) => s.seq);
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Multi-turn metrics of a batch of rollouts (issue 10 item 5), named for a metrics JSONL / Prometheus. */
export interface RolloutMetrics {
  episodes: number;
  /** Count of each status, every status present (0 when none). */
  status: Record<EpisodeStatus, number>;
  /** Count of each stop reason, every reason present. */
  stop_reasons: Record<StopReason, number>;
  /** Share of episodes that ended `truncated`. */
  truncation_rate: number;
  /** Truncated episodes by the number of turns they had taken ("1": truncated in its first turn, …). */
  truncated_at_turn: Record<string, number>;
  turns_per_episode_mean: number;
  turns_per_episode_max: number;
  /** Share of turns whose code ended with a sandbox error (runtime, syntax, limits …). */
  sandbox_error_rate: number;
  /** Sandbox errors by code. */
  sandbox_errors: Record<string, number>;
  completion_tokens_mean: number;
  completion_tokens_min: number;
  completion_tokens_max: number;
  /** `llm()` calls per episode, mean. */
  llm_calls_mean: number;
  /** Executed `llm()` calls by depth ("1", "2", …), summed over episodes. */
  llm_calls_per_depth: Record<string, number>;
  /** Prompt + completion tokens of a call, summed by the depth of the call. */
  subcall_tokens_per_depth: Record<string, number>;
  /** Latency of calls, summed by depth, ms. */
  subcall_latency_ms_per_depth: Record<string, number>;
  subcall_tokens_mean: number;
  /** Sandbox time of one step (a turn that ran code), ms. */
  env_step_ms_mean: number;
  env_step_ms_p50: number;
  /** Sampling time per episode (sum over its turns of their batched calls), ms. */
  generation_ms_mean: number;
}

/**
 * Metrics of rollouts. `infra_error` trajectories count only in `episodes` and `status` (they are excluded from
 * every other figure, as from the update).
 */
export function rolloutMetrics(trajectories: readonly EpisodeTrajectory[]): RolloutMetrics {
  const status = Object.fromEntries(EPISODE_STATUSES.map((s) => [s, 0])) as Record<EpisodeStatus, number>;
  const stopReasons = Object.fromEntries(STOP_REASONS.map((s) => [s, 0])) as Record<StopReason, number>;
  for (const t of trajectories) {
    status[t.status]++;
    stopReasons[t.stopReason]++;
  }
  const scored = trajectories.filter((t) => t.status !== 'infra_error');
  const truncatedAtTurn: Record<string, number> = {};
  const sandboxErrors: Record<string, number> = {};
  const callsPerDepth: Record<string, number> = {};
  const tokensPerDepth: Record<string, number> = {};
  const latencyPerDepth: Record<string, number> = {};
  const envSteps: number[] = [];
  let turns = 0;
  let erroredTurns = 0;
  let calls = 0;
  for (const t of scored) {
    if (t.status === 'truncated') truncatedAtTurn[t.turns.length] = (truncatedAtTurn[t.turns.length] ?? 0) + 1;
    for (const turn of t.turns) {
      turns++;
      if (turn.action === 'code') envSteps.push(turn.envMs);
      if (turn.sandboxError !== null) {
        erroredTurns++;
        sandboxErrors[turn.sandboxError] = (sandboxErrors[turn.sandboxError] ?? 0) + 1;
      }
    }
    for (const node of flattenCalls(t.recursionTree)) {
      calls++;
      const d = String(node.depth);
      callsPerDepth[d] = (callsPerDepth[d] ?? 0) + 1;
      tokensPerDepth[d] = (tokensPerDepth[d] ?? 0) + node.promptTokens + node.completionTokens;
      latencyPerDepth[d] = (latencyPerDepth[d] ?? 0) + node.latencyMs;
    }
  }
  const completion = scored.map((t) => t.tokens.completion);
  return {
    episodes: trajectories.length,
    status,
    stop_reasons: stopReasons,
    truncation_rate: scored.length === 0 ? 0 : status.truncated / scored.length,
    truncated_at_turn: truncatedAtTurn,
    turns_per_episode_mean: mean(scored.map((t) => t.turns.length)),
    turns_per_episode_max: Math.max(0, ...scored.map((t) => t.turns.length)),
    sandbox_error_rate: turns === 0 ? 0 : erroredTurns / turns,
    sandbox_errors: sandboxErrors,
    completion_tokens_mean: mean(completion),
    completion_tokens_min: completion.length === 0 ? 0 : Math.min(...completion),
    completion_tokens_max: Math.max(0, ...completion),
    llm_calls_mean: scored.length === 0 ? 0 : calls / scored.length,
    llm_calls_per_depth: callsPerDepth,
    subcall_tokens_per_depth: tokensPerDepth,
    subcall_latency_ms_per_depth: latencyPerDepth,
    subcall_tokens_mean: mean(scored.map((t) => t.tokens.subcall)),
    env_step_ms_mean: mean(envSteps),
    env_step_ms_p50: median(envSteps),
    generation_ms_mean: mean(scored.map((t) => t.timings.generationMs)),
  };
}
