import type { EpisodeTrajectory } from '@fathom/contracts';
import type { Logger } from '@fathom/observability';
import type { TurnEvent } from '@fathom/rlm';
import { estimateTokens } from '@fathom/tasks';
import type { EnvServiceConfig } from '../config';
import type { SessionSlot } from '../episode/episode';
import type { ReplPool } from '../episode/episode.service';
import { endpointRunner } from '../inference/endpoint.runner';
import type { InferencePort } from '../inference/inference.client';
import { OpenAiError } from './openai.errors';

/** One chat completion as an episode: its id, the document that becomes `ctx`, the question and sampling. */
export interface ChatEpisodeRequest {
  id: string;
  document: string;
  question: string;
  /** Lowers CHAT_MAX_TURN_TOKENS for this episode. */
  maxTokens?: number;
  /** Sampling temperature of every generation of the episode (its turns and its llm() calls); LLM_TEMPERATURE by default. */
  temperature?: number;
  seed?: number;
}

/** One turn of an episode a FATHOM client drives: its ChatML prompt and sampling. */
export interface ChatTurnRequest {
  id: string;
  prompt: string;
  /** Lowers CHAT_MAX_TURN_TOKENS for this turn. */
  maxTokens?: number;
  /** LLM_TEMPERATURE by default. */
  temperature?: number;
  seed?: number;
  stop: string[];
}

/** The model's turn, as the Inference endpoint wrote it. */
export interface ChatTurnReply {
  text: string;
  finishReason: 'stop' | 'length';
  promptTokens: number;
  completionTokens: number;
}

/** The capacity the chat episodes share with every other session (EpisodeService's MAX_CONCURRENT_ENVS slots). */
export interface SessionCapacity {
  acquireSlot(): SessionSlot;
  releaseSlot(slot: SessionSlot): void;
}

export interface ChatCompletionServiceDeps {
  config: EnvServiceConfig;
  pool: ReplPool;
  inference: InferencePort;
  capacity: SessionCapacity;
  logger: Logger;
}

/**
 * Runs the RLM episode behind a /v1/chat/completions request with the one episode engine, as the env-service runs
 * it (`endpointRunner`: `EpisodeRunner` over the service's pool and Inference endpoint, as for llm() sub-calls); the
 * episode holds one of the MAX_CONCURRENT_ENVS slots while it runs.
 */
export class ChatCompletionService {
  constructor(private readonly deps: ChatCompletionServiceDeps) {}

  /**
   * Takes a capacity slot — synchronously, so a full service (CAPACITY_REACHED) is known before anything is sent —
   * and runs the episode, reporting each finished turn to `onTurn`. The promise resolves with the trajectory
   * whatever its status (an `infra_error` is the caller's to report); the slot is released when it settles.
   */
  start(request: ChatEpisodeRequest, onTurn?: (event: TurnEvent) => void): Promise<EpisodeTrajectory> {
    const slot = this.deps.capacity.acquireSlot();
    return this.run(request, onTurn).finally(() => this.deps.capacity.releaseSlot(slot));
  }

  /**
   * Asks the Inference endpoint for one turn of a conversation a client drives (it holds the sandbox). An endpoint
   * that fails is OpenAiError `episode_failed` (502) naming its error.
   */
  async turn(request: ChatTurnRequest): Promise<ChatTurnReply> {
    const { config, inference } = this.deps;
    const reply = await inference
      .generate({
        prompt: request.prompt,
        max_tokens: Math.min(request.maxTokens ?? config.CHAT_MAX_TURN_TOKENS, config.CHAT_MAX_TURN_TOKENS),
        temperature: request.temperature ?? config.LLM_TEMPERATURE,
        stop: request.stop,
        seed: request.seed,
        episode_id: request.id,
        depth: 0,
        request_id: request.id,
      })
      .catch((error: unknown) => {
        throw new OpenAiError(
          'EPISODE_FAILED',
          `the turn could not be generated: the inference endpoint failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    return {
      text: reply.text,
      finishReason: reply.finish_reason === 'length' ? 'length' : 'stop',
      promptTokens: reply.prompt_tokens,
      completionTokens: reply.completion_tokens,
    };
  }

  private async run(request: ChatEpisodeRequest, onTurn?: (event: TurnEvent) => void): Promise<EpisodeTrajectory> {
    const { config, logger } = this.deps;
    const settings = {
      maxTurns: config.CHAT_MAX_TURNS,
      maxTokensPerTurn: Math.min(request.maxTokens ?? config.CHAT_MAX_TURN_TOKENS, config.CHAT_MAX_TURN_TOKENS),
      sampling: { temperature: request.temperature ?? config.LLM_TEMPERATURE },
      promptStyle: { system: config.CHAT_PROMPT_SYSTEM, previewChars: config.CHAT_PREVIEW_CHARS },
      // A client is waiting: a failed episode is reported, not rerun.
      maxInfraRetries: 0,
    };
    const runner = await endpointRunner(this.deps, request.id, 0, settings, onTurn).catch((error: unknown) => {
      throw new OpenAiError(
        'EPISODE_FAILED',
        `the episode could not run: the inference endpoint failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
    const task = {
      id: request.id,
      question: request.question,
      context: request.document,
      contextTokens: estimateTokens(request.document),
    };
    const group = await runner.runGroup(task, { G: 1, seed: request.seed ?? 0 });
    const trajectory = group.trajectories[0] ?? group.excluded[0];
    logger.info('chat completion episode done', {
      completion_id: request.id,
      status: trajectory.status,
      stop_reason: trajectory.stopReason,
      turns: trajectory.turns.length,
      document_chars: request.document.length,
    });
    return trajectory;
  }
}
