import { Body, Controller, Inject, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import type { EpisodeService } from '../episode/episode.service';
import { EPISODES } from '../tokens';
import { McpHandler } from './mcp.handler';

/** POST /mcp: JSON-RPC 2.0 for MCP clients (see McpHandler). */
@Controller('mcp')
export class McpController {
  private readonly handler: McpHandler;

  constructor(@Inject(EPISODES) episodes: EpisodeService) {
    this.handler = new McpHandler(episodes);
  }

  @Post()
  async post(@Body() body: unknown, @Res() res: Response): Promise<void> {
    const reply = await this.handler.handle(body);
    if (reply.body === undefined) res.status(reply.status).end();
    else res.status(reply.status).json(reply.body);
  }
}
