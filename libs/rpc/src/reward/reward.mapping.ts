import { status } from '@grpc/grpc-js';
import {
  GroupRewardSchema,
  RewardConfigSchema,
  RewardTrajectorySchema,
  TaskSchema,
  type GroupReward,
  type MeanStd,
  type RewardConfig,
  type RewardConfigInput,
  type RewardResult,
  type RewardTrajectory,
} from '@fathom/contracts';
import type { RewardTask } from '@fathom/rewards';
import { z } from 'zod';
import { StatusError } from '../errors';
import type { MeanStd__Output } from '../generated/fathom/reward/v1/MeanStd';
import type { RewardResult as RewardResultMessage } from '../generated/fathom/reward/v1/RewardResult';
import type { ScoreGroupReply, ScoreGroupReply__Output } from '../generated/fathom/reward/v1/ScoreGroupReply';
import type { ScoreGroupRequest, ScoreGroupRequest__Output } from '../generated/fathom/reward/v1/ScoreGroupRequest';
import type { Trajectory, Trajectory__Output } from '../generated/fathom/reward/v1/Trajectory';

/** What the reward needs of a task, validated like a dataset line (libs/contracts TaskSchema). */
const TaskRefSchema = TaskSchema.pick({ question: true, answer: true, aliases: true, context_tokens: true });

/** Contract field names (camelCase) back to the proto's, so an error names the field the caller sent. */
const PROTO_FIELD: Record<string, string> = {
  llmCalls: 'llm_calls',
  promptTokens: 'prompt_tokens',
  completionTokens: 'completion_tokens',
  chunkChars: 'chunk_chars',
};

/** "task.context_tokens: Too small: expected number to be >0; …" */
function describeIssues(prefix: string, error: z.ZodError, rename: (path: PropertyKey[]) => string): string {
  return error.issues
    .map((issue) => `${[prefix, rename(issue.path)].filter((p) => p !== '').join('.')}: ${issue.message}`)
    .join('; ');
}

function trajectoryPath(path: PropertyKey[]): string {
  if (path[0] === 'tokens' && path.length === 2)
    return path[1] === 'completion' ? 'completion_tokens' : 'subcall_tokens';
  return path
    .map((key) => (typeof key === 'number' ? `[${key}]` : (PROTO_FIELD[String(key)] ?? String(key))))
    .join('.')
    .replace(/\.\[/g, '[');
}

export interface ScoreGroupInput {
  trajectories: RewardTrajectory[];
  task: RewardTask;
  config: RewardConfig;
}

/**
 * A ScoreGroup request as libs/rewards' types. Throws StatusError INVALID_ARGUMENT naming the field for a missing
 * or malformed task, an empty group, a malformed trajectory, or a reward_config_json that is not JSON or not a
 * valid RewardConfig (unknown keys included). An empty reward_config_json is FATHOM's default config.
 */
export function fromScoreGroupRequest(request: ScoreGroupRequest__Output): ScoreGroupInput {
  const invalid = (message: string) => new StatusError(status.INVALID_ARGUMENT, message);
  if (request.task === undefined) throw invalid('task: required');
  const task = TaskRefSchema.safeParse({ ...request.task, aliases: request.task.aliases ?? [] });
  if (!task.success) throw invalid(describeIssues('task', task.error, (path) => path.join('.')));

  const messages = request.trajectories ?? [];
  if (messages.length === 0) throw invalid('trajectories: empty; a group needs at least one trajectory');
  const trajectories = messages.map((message, i) => {
    if (message.executed !== true && (message.llm_calls ?? []).length > 0) {
      throw invalid(`trajectories[${i}].llm_calls: given for a trajectory that was not executed`);
    }
    const parsed = RewardTrajectorySchema.safeParse(fromTrajectoryMessage(message));
    if (!parsed.success) throw invalid(describeIssues(`trajectories[${i}]`, parsed.error, trajectoryPath));
    return parsed.data;
  });

  let configInput: unknown = {};
  const json = request.reward_config_json ?? '';
  if (json.trim() !== '') {
    try {
      configInput = JSON.parse(json);
    } catch (error) {
      throw invalid(`reward_config_json: not valid JSON (${error instanceof Error ? error.message : String(error)})`);
    }
  }
  const config = RewardConfigSchema.safeParse(configInput);
  if (!config.success) {
    throw invalid(describeIssues('reward_config_json', config.error, (path) => path.map(String).join('.')));
  }
  return { trajectories, task: task.data, config: config.data };
}

function fromTrajectoryMessage(message: Trajectory__Output): RewardTrajectory {
  return {
    turns: (message.turns ?? []).map((turn) => ({ completion: turn.completion ?? '' })),
    llmCalls:
      message.executed === true
        ? (message.llm_calls ?? []).map((call) => ({
            depth: call.depth ?? 0,
            promptTokens: call.prompt_tokens ?? 0,
            completionTokens: call.completion_tokens ?? 0,
            ...(call.chunk_chars === undefined ? {} : { chunkChars: call.chunk_chars }),
          }))
        : null,
    tokens: { completion: message.completion_tokens ?? 0, subcall: message.subcall_tokens ?? 0 },
    ...(message.repl_answer === undefined ? {} : { replAnswer: message.repl_answer }),
    ...(message.env_reward === undefined ? {} : { envReward: message.env_reward }),
  };
}

/** A libs/rewards trajectory as a proto message; `llmCalls: null` (scored offline) is `executed: false`. */
export function toTrajectoryMessage(trajectory: RewardTrajectory): Trajectory {
  return {
    turns: trajectory.turns.map((turn) => ({ completion: turn.completion })),
    executed: trajectory.llmCalls !== null,
    llm_calls: (trajectory.llmCalls ?? []).map((call) => ({
      depth: call.depth,
      prompt_tokens: call.promptTokens,
      completion_tokens: call.completionTokens,
      ...(call.chunkChars === undefined ? {} : { chunk_chars: call.chunkChars }),
    })),
    completion_tokens: trajectory.tokens.completion,
    subcall_tokens: trajectory.tokens.subcall,
    ...(trajectory.replAnswer === undefined ? {} : { repl_answer: trajectory.replAnswer }),
    ...(trajectory.envReward === undefined ? {} : { env_reward: trajectory.envReward }),
  };
}

export function toScoreGroupRequest(
  trajectories: readonly RewardTrajectory[],
  task: RewardTask,
  config?: RewardConfigInput,
): ScoreGroupRequest {
  return {
    task: { question: task.question, answer: task.answer, aliases: task.aliases, context_tokens: task.context_tokens },
    trajectories: trajectories.map(toTrajectoryMessage),
    reward_config_json: config === undefined ? '' : JSON.stringify(config),
  };
}

/** Nullable diagnostics become unset proto3 `optional` fields. */
function toResultMessage(result: RewardResult): RewardResultMessage {
  const { answer, rejection, matched, matchKind, ...d } = result.diagnostics;
  return {
    total: result.total,
    components: result.components,
    diagnostics: {
      ...(answer === null ? {} : { answer }),
      answer_source: d.answerSource,
      tag_count: d.tagCount,
      ...(rejection === null ? {} : { rejection }),
      ...(matched === null ? {} : { matched }),
      ...(matchKind === null ? {} : { match_kind: matchKind }),
      llm_calls: d.llmCalls,
      call_count_source: d.callCountSource,
      unparsed_code_blocks: d.unparsedCodeBlocks,
      tokens_spent: d.tokensSpent,
      token_budget: d.tokenBudget,
      recursion_efficiency_raw: d.recursionEfficiencyRaw,
      uncapped_total: d.uncappedTotal,
      capped: d.capped,
    },
  };
}

export function toScoreGroupReply(group: GroupReward): ScoreGroupReply {
  return {
    results: group.results.map(toResultMessage),
    ...group.totals,
    ...group.perComponent,
    zero_std: group.zeroStd,
  };
}

const meanStdOf = (m: MeanStd__Output | undefined): MeanStd => ({ mean: m?.mean ?? 0, std: m?.std ?? 0 });

/**
 * A ScoreGroup reply as libs/rewards' GroupReward (unset proto3 fields read as their zero value, unset optional
 * diagnostics as null), validated against GroupRewardSchema. Throws StatusError INTERNAL for a reply that does
 * not fit it.
 */
export function fromScoreGroupReply(reply: ScoreGroupReply__Output): GroupReward {
  const results = (reply.results ?? []).map((r) => {
    const d = r.diagnostics ?? {};
    return {
      total: r.total ?? 0,
      components: {
        format: r.components?.format ?? 0,
        correctness: r.components?.correctness ?? 0,
        token_budget: r.components?.token_budget ?? 0,
        recursion_efficiency: r.components?.recursion_efficiency ?? 0,
      },
      diagnostics: {
        answer: d.answer ?? null,
        answerSource: d.answer_source ?? '',
        tagCount: d.tag_count ?? 0,
        rejection: d.rejection ?? null,
        matched: d.matched ?? null,
        matchKind: d.match_kind ?? null,
        llmCalls: d.llm_calls ?? 0,
        callCountSource: d.call_count_source ?? '',
        unparsedCodeBlocks: d.unparsed_code_blocks ?? 0,
        tokensSpent: d.tokens_spent ?? 0,
        tokenBudget: d.token_budget ?? 0,
        recursionEfficiencyRaw: d.recursion_efficiency_raw ?? 0,
        uncappedTotal: d.uncapped_total ?? 0,
        capped: d.capped ?? false,
      },
    };
  });
  const parsed = GroupRewardSchema.safeParse({
    rewards: results.map((r) => r.total),
    results,
    totals: { mean: reply.mean ?? 0, std: reply.std ?? 0, min: reply.min ?? 0, max: reply.max ?? 0 },
    perComponent: {
      format: meanStdOf(reply.format),
      correctness: meanStdOf(reply.correctness),
      token_budget: meanStdOf(reply.token_budget),
      recursion_efficiency: meanStdOf(reply.recursion_efficiency),
    },
    zeroStd: reply.zero_std ?? false,
  });
  if (!parsed.success) {
    throw new StatusError(status.INTERNAL, `malformed ScoreGroup reply: ${z.prettifyError(parsed.error)}`);
  }
  return parsed.data;
}
