import { Body, Controller, Inject, Post, Res } from '@nestjs/common';
import type { Response } from 'express';
import { EpisodeService } from '../episode/episode.service';
import { McpHandler } from './mcp.handler';

/**
 * POST /mcp: JSON-RPC 2.0 for MCP clients (see McpHandler). Always HTTP 200 with a JSON-RPC response, errors
 * included, as OpenEnv answers; a notification is 202 with no body, as MCP's HTTP transport prescribes.
 */
@Controller('mcp')
export class McpController {
  private readonly handler: McpHandler;

  constructor(@Inject(EpisodeService) episodes: EpisodeService) {
    this.handler = new McpHandler(episodes);
  }

  @Post()
  async post(@Body() body: unknown, @Res() res: Response): Promise<void> {
    const reply = await this.handler.handle(body);
    if (reply.body === undefined) res.status(202).end();
    else res.status(200).json(reply.body);
  }
}
