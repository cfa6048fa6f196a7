import { Body, Controller, Get, HttpCode, Inject, Post, Res, UseFilters } from '@nestjs/common';
import type { EpisodeTrajectory } from '@fathom/contracts';
import { Logger } from '@fathom/observability';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { EnvServiceConfig } from '../config';
import { parseChatRequest } from './chat-request';
import { chunks, completionBody, turnBody, type CompletionMeta } from './chat-response';
import { ChatCompletionService } from './chat.service';
import { OpenAiErrorFilter } from './openai-error.filter';
import { openAiErrorBody, OpenAiError, toOpenAiError } from './openai.errors';

/**
 * The OpenAI-compatible API: a chat completion is one RLM episode over the request's document, answered with the
 * episode's answer and its trace under the additive `fathom` field; or, for a FATHOM client that runs the episode
 * itself, one turn of it (README, "OpenAI-compatible API").
 */
@Controller('v1')
@UseFilters(OpenAiErrorFilter)
export class OpenAiController {
  constructor(
    @Inject(ChatCompletionService) private readonly chat: ChatCompletionService,
    @Inject(EnvServiceConfig) private readonly config: EnvServiceConfig,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  @Get('models')
  models() {
    return {
      object: 'list',
      data: [{ id: this.config.FATHOM_MODEL_ID, object: 'model', created: 0, owned_by: 'fathom' }],
    };
  }

  @Post('chat/completions')
  @HttpCode(200)
  async completions(@Body() body: unknown, @Res() res: Response): Promise<void> {
    const request = parseChatRequest(body, this.config.MAX_DOCUMENT_BYTES);
    const model = this.config.FATHOM_MODEL_ID;
    if (request.model !== undefined && request.model !== model)
      throw new OpenAiError(
        'MODEL_NOT_FOUND',
        `model "${request.model}" is not served here; this server serves "${model}"`,
        'model',
      );
    const meta: CompletionMeta = { id: `chatcmpl-${randomUUID()}`, model, created: Math.floor(Date.now() / 1000) };
    if (request.kind === 'turn') {
      if (request.stream)
        throw new OpenAiError(
          'UNSUPPORTED_PARAMETER',
          'stream=true is not supported for a turn of a FATHOM conversation; send it without stream',
          'stream',
        );
      const { prompt, maxTokens, temperature, seed, stop } = request;
      const reply = await this.chat.turn({ id: meta.id, prompt, maxTokens, temperature, seed, stop });
      res.json(turnBody(meta, reply, stop));
      return;
    }
    const episode = {
      id: meta.id,
      document: request.document,
      question: request.question,
      maxTokens: request.maxTokens,
      temperature: request.temperature,
      seed: request.seed,
    };
    if (!request.stream) {
      res.json(completionBody(meta, succeeded(await this.chat.start(episode)), request.stop));
      return;
    }
    const events = new EventStream(res);
    // start() takes its capacity slot synchronously: a full service is a 429 before the first event opens the stream.
    const finished = this.chat.start(episode, (event) => events.send(chunks.turn(meta, event.index, event.turn)));
    events.send(chunks.start(meta));
    try {
      const trajectory = succeeded(await finished);
      events.send(chunks.answer(meta, trajectory, request.stop));
      events.send(chunks.finish(meta, trajectory));
      if (request.includeUsage) events.send(chunks.usage(meta, trajectory));
    } catch (error) {
      const failure = toOpenAiError(error);
      if (failure.code === 'INTERNAL_ERROR') this.logger.error('a streamed chat completion failed', { err: error });
      events.send(openAiErrorBody(failure));
    } finally {
      events.end();
    }
  }
}

/** The trajectory of an episode that ran; an infrastructure failure (inference or sandbox down) is a 502. */
function succeeded(trajectory: EpisodeTrajectory): EpisodeTrajectory {
  if (trajectory.status !== 'infra_error') return trajectory;
  const cause = trajectory.infraError;
  throw new OpenAiError(
    'EPISODE_FAILED',
    `the episode could not run: ${cause?.code ?? 'infra'}: ${cause?.message ?? ''}`,
  );
}

/** Server-Sent Events as OpenAI streams them: `data: <json>` events, then `data: [DONE]`. Opens on the first event. */
class EventStream {
  private opened = false;

  constructor(private readonly res: Response) {}

  send(data: object): void {
    if (!this.opened) {
      this.opened = true;
      this.res.status(200);
      this.res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      this.res.setHeader('cache-control', 'no-cache');
      this.res.setHeader('x-accel-buffering', 'no');
      this.res.flushHeaders();
    }
    if (!this.res.writableEnded && !this.res.destroyed) this.res.write(`data: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (!this.res.writableEnded && !this.res.destroyed) this.res.end('data: [DONE]\n\n');
  }
}
