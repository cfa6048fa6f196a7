import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@fathom/observability';
import { RewardError, scoreGroup } from '@fathom/rewards';
import { serverError, statusName, StatusError } from '../errors';
import type { RewardHandlers } from '../generated/fathom/reward/v1/Reward';
import { loadService } from '../protos';
import { bindServer, createServer, shutdownServer } from '../server';
import { fromScoreGroupRequest, toScoreGroupReply } from './reward.mapping';

export interface RewardServerOptions {
  host: string;
  /** 0 binds any free port; the bound one is returned. */
  port: number;
  logger: Logger;
}

export interface RewardServerHandle {
  port: number;
  close(): Promise<void>;
}

/**
 * Serves proto/reward.proto: ScoreGroup scores a group with libs/rewards' pure `scoreGroup`. A malformed request
 * (missing task, bad trajectory, reward_config_json that is not JSON or not a RewardConfig) is INVALID_ARGUMENT
 * naming the field; an unexpected failure is INTERNAL and logged. Either way the server keeps serving.
 */
export async function startRewardServer(options: RewardServerOptions): Promise<RewardServerHandle> {
  const { logger } = options;
  const handlers: RewardHandlers = {
    ScoreGroup(call, callback) {
      try {
        const { trajectories, task, config } = fromScoreGroupRequest(call.request);
        callback(null, toScoreGroupReply(scoreGroup(trajectories, task, config)));
      } catch (error) {
        if (error instanceof StatusError || error instanceof RewardError) {
          const code = error instanceof StatusError ? error.code : grpc.status.INVALID_ARGUMENT;
          logger.debug('ScoreGroup refused', { code: statusName(code), reason: error.message });
          callback(serverError(code, error.message));
        } else {
          logger.error('ScoreGroup failed', { err: error });
          callback(
            serverError(grpc.status.INTERNAL, `ScoreGroup: ${error instanceof Error ? error.message : String(error)}`),
          );
        }
      }
    },
  };
  const server = createServer();
  server.addService(loadService('reward.proto', 'fathom.reward.v1.Reward').service, handlers);
  const port = await bindServer(server, options.host, options.port);
  logger.info('gRPC Reward listening', { port });
  return { port, close: () => shutdownServer(server) };
}
