import { Body, Controller, Get, Header, HttpCode, Inject, Post, Query } from '@nestjs/common';
import {
  EnvResetRequestSchema,
  EnvStepRequestSchema,
  WS_MESSAGE_TYPES,
  type EnvCapabilities,
  type EnvFreshState,
  type EnvMetadata,
  type EnvState,
  type EnvStepReply,
} from '@fathom/contracts';
import { EnvServiceConfig } from '../config';
import { EpisodeService } from '../episode/episode.service';
import { parseInput } from '../validate';
import { SERVICE_VERSION } from '../version';
import { homePage } from './home.page';
import { CloseRequestSchema, envSchemas, openApiDocument, StateQuerySchema } from './schemas';
import { GrpcPort } from '../grpc/grpc-port';
import { MCP_TOOLS } from '../mcp/mcp.handler';

/**
 * The OpenEnv HTTP API. OpenEnv's HTTP endpoints are stateless (each call gets a fresh environment); FATHOM adds
 * HTTP sessions named by `episode_id`: returned by /reset, sent back on /step, /state, /close. Without an
 * `episode_id`, /step runs in a scratch episode closed right after and /state is a fresh environment's state,
 * as upstream.
 */
@Controller()
export class EnvController {
  constructor(
    @Inject(EpisodeService) private readonly episodes: EpisodeService,
    @Inject(EnvServiceConfig) private readonly config: EnvServiceConfig,
    @Inject(GrpcPort) private readonly grpcPort: GrpcPort,
  ) {}

  @Post('reset')
  @HttpCode(200)
  async reset(@Body() body: unknown): Promise<EnvStepReply> {
    const request = parseInput(EnvResetRequestSchema, body ?? {}, 'body');
    return (await this.episodes.reset(request, 'http')).reply;
  }

  @Post('step')
  @HttpCode(200)
  step(@Body() body: unknown): Promise<EnvStepReply> {
    const { episode_id, ...data } = parseInput(EnvStepRequestSchema, body, 'body');
    if (episode_id === undefined) return this.episodes.stepScratch(data, 'http');
    return this.episodes.step(episode_id, data, 'http');
  }

  @Get('state')
  state(@Query() query: unknown): EnvState | EnvFreshState {
    const { episode_id } = parseInput(StateQuerySchema, query, 'query');
    if (episode_id === undefined) return { episode_id: null, step_count: 0 };
    return this.episodes.state(episode_id);
  }

  @Post('close')
  @HttpCode(200)
  async close(@Body() body: unknown): Promise<{ episode_id: string; closed: true }> {
    const { episode_id } = parseInput(CloseRequestSchema, body, 'body');
    await this.episodes.close(episode_id);
    return { episode_id, closed: true };
  }

  @Get('metadata')
  metadata(): EnvMetadata {
    return {
      name: 'fathom-rlm',
      description:
        'Long-document question answering as a Recursive Language Model: the document is `ctx` in a sandboxed ' +
        'JavaScript REPL; actions run code (print, llm(question, chunk)) or submit the answer.',
      version: SERVICE_VERSION,
      author: 'FATHOM',
      documentation_url: '/',
    };
  }

  /** FATHOM's additions to /metadata, whose OpenEnv model (EnvironmentMetadata) forbids extra keys. */
  @Get('capabilities')
  capabilities(): EnvCapabilities {
    return {
      action_space:
        '{code: string} runs JavaScript in the REPL; {answer: string} ends the episode and is scored; ' +
        "OpenEnv REPLEnv's {code, is_final, final_answer} is accepted too",
      max_concurrent_envs: this.config.MAX_CONCURRENT_ENVS,
      active_sessions: this.episodes.liveCount,
      max_steps: this.config.MAX_STEPS,
      transports: ['http', `ws /ws (${WS_MESSAGE_TYPES.join(', ')})`, 'ws /mcp', 'http /mcp', 'grpc fathom.env.v1.Env'],
      mcp_tools: MCP_TOOLS.map((tool) => tool.name),
    };
  }

  @Get('schema')
  schema(): ReturnType<typeof envSchemas> {
    return envSchemas();
  }

  @Get('openapi.json')
  openapi(): Record<string, unknown> {
    return openApiDocument(SERVICE_VERSION);
  }

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  home(): string {
    return homePage(SERVICE_VERSION, this.config.MAX_CONCURRENT_ENVS, this.grpcPort.port);
  }
}
