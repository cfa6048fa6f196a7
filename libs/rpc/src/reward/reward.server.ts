import * as grpc from '@grpc/grpc-js';
import { Controller, UseFilters } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import type { Logger } from '@fathom/observability';
import { RewardError, scoreGroup } from '@fathom/rewards';
import { StatusError } from '../errors';
import type { ScoreGroupReply } from '../generated/fathom/reward/v1/ScoreGroupReply';
import type { ScoreGroupRequest__Output } from '../generated/fathom/reward/v1/ScoreGroupRequest';
import { startGrpcService, type GrpcServiceHandle, type GrpcServing } from '../nest/grpc.service';
import { StatusErrorFilter } from '../nest/status.filter';
import { fromScoreGroupRequest, toScoreGroupReply } from './reward.mapping';

export interface RewardServerOptions {
  host: string;
  /** 0 binds any free port; the bound one is returned. */
  port: number;
  logger: Logger;
  /** The shared token of the internal gRPC services (GRPC_TOKEN; see GrpcTransportOptions.token). */
  token?: string;
}

export type RewardServerHandle = GrpcServiceHandle;

/**
 * proto/reward.proto: ScoreGroup scores a group with libs/rewards' pure `scoreGroup`. A malformed request (missing
 * task, bad trajectory, reward_config_json that is not JSON or not a RewardConfig) is INVALID_ARGUMENT naming the
 * field; an unexpected failure is INTERNAL and logged. Either way the server keeps serving.
 */
@Controller()
@UseFilters(StatusErrorFilter)
export class RewardController {
  @GrpcMethod('Reward', 'ScoreGroup')
  scoreGroup(request: ScoreGroupRequest__Output): ScoreGroupReply {
    try {
      const { trajectories, task, config } = fromScoreGroupRequest(request);
      return toScoreGroupReply(scoreGroup(trajectories, task, config));
    } catch (error) {
      if (error instanceof RewardError) throw new StatusError(grpc.status.INVALID_ARGUMENT, error.message);
      throw error;
    }
  }
}

/** The Reward service, as the reward-service serves it. */
export const REWARD_SERVING: GrpcServing = {
  services: [{ proto: 'reward.proto', name: 'fathom.reward.v1.Reward' }],
  controllers: [RewardController],
};

/** Serves the Reward service alone on host:port (tests, tools). */
export function startRewardServer(options: RewardServerOptions): Promise<RewardServerHandle> {
  return startGrpcService({ ...options, ...REWARD_SERVING });
}
