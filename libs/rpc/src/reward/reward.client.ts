import * as grpc from '@grpc/grpc-js';
import type { GroupReward, RewardConfigInput, RewardTrajectory } from '@fathom/contracts';
import type { RewardTask } from '@fathom/rewards';
import { tokenClientOptions } from '../auth';
import { RpcError, StatusError } from '../errors';
import type { RewardClient as RewardGrpcClient } from '../generated/fathom/reward/v1/Reward';
import type { ScoreGroupReply__Output } from '../generated/fathom/reward/v1/ScoreGroupReply';
import type { ScoreGroupRequest } from '../generated/fathom/reward/v1/ScoreGroupRequest';
import { loadService } from '../protos';
import { withRetries, type RetryOptions } from '../retry';
import { fromScoreGroupReply, toScoreGroupRequest } from './reward.mapping';

export interface RewardClientOptions {
  /** Deadline of each attempt. Default 10 s. */
  deadlineMs?: number;
  /** Attempts after the first. Default 2. */
  retries?: number;
  /** Backoff before the first retry, doubled for each further one. Default 200 ms. */
  backoffMs?: number;
  /** The reward-service's GRPC_TOKEN, sent with every call; unset: none. */
  token?: string;
}

/**
 * Client of the reward-service's Reward API, for eval tools and tests. Scoring is pure, so calls that fail with
 * UNAVAILABLE or DEADLINE_EXCEEDED are retried with backoff; other failures reject with an RpcError.
 */
export class RewardClient {
  private readonly client: RewardGrpcClient;
  private readonly deadlineMs: number;
  private readonly retry: RetryOptions;

  constructor(address: string, options: RewardClientOptions = {}) {
    const Reward = loadService('reward.proto', 'fathom.reward.v1.Reward');
    this.client = new Reward(address, grpc.credentials.createInsecure(), tokenClientOptions(options.token));
    this.deadlineMs = options.deadlineMs ?? 10_000;
    this.retry = {
      retries: options.retries ?? 2,
      backoffMs: options.backoffMs ?? 200,
      retryOn: new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]),
    };
  }

  /** Scores a group like libs/rewards' `scoreGroup(trajectories, task, config)`, on the server. */
  async scoreGroup(
    trajectories: readonly RewardTrajectory[],
    task: RewardTask,
    config?: RewardConfigInput,
  ): Promise<GroupReward> {
    const reply = await this.scoreGroupMessage(toScoreGroupRequest(trajectories, task, config));
    try {
      return fromScoreGroupReply(reply);
    } catch (error) {
      if (error instanceof StatusError) throw new RpcError(error.code, 'ScoreGroup', error.message);
      throw error;
    }
  }

  /** Sends a ScoreGroup request as given and returns the raw reply. */
  scoreGroupMessage(request: ScoreGroupRequest): Promise<ScoreGroupReply__Output> {
    return withRetries(
      `ScoreGroup (${request.trajectories?.length ?? 0} trajectories)`,
      this.retry,
      () =>
        new Promise<ScoreGroupReply__Output>((resolve, reject) =>
          this.client.ScoreGroup(request, { deadline: new Date(Date.now() + this.deadlineMs) }, (err, reply) =>
            err || reply === undefined ? reject(err ?? new Error('empty reply')) : resolve(reply),
          ),
        ),
    );
  }

  close(): void {
    this.client.close();
  }
}
