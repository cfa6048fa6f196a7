import type { status } from '@grpc/grpc-js';
import { RpcError, toRpcError } from './errors';

export interface RetryOptions {
  /** Attempts after the first one. */
  retries: number;
  /** Wait before the first retry; doubled for each further retry, with jitter. */
  backoffMs: number;
  /** Codes worth another attempt; any other code fails at once. */
  retryOn: ReadonlySet<status>;
}

/** Longest wait between two attempts, however many retries are configured. */
const MAX_BACKOFF_MS = 10_000;

/**
 * Runs `attempt` until it resolves, fails with a code outside `retryOn`, or `retries` retries are spent.
 * Waits `backoffMs · 2^i` (i = retry index) between attempts, scaled by a random factor in [0.5, 1] so that many
 * workers retrying one restarting learner do not return in lockstep. The final error is an RpcError for
 * `context`, noting how many attempts were made when more than one was.
 */
export async function withRetries<T>(context: string, options: RetryOptions, attempt: () => Promise<T>): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      const rpcError = toRpcError(error, context);
      if (!options.retryOn.has(rpcError.code) || retry >= options.retries) {
        if (retry === 0) throw rpcError;
        throw new RpcError(rpcError.code, context, `${rpcError.details} (after ${retry + 1} attempts)`);
      }
      const waitMs = Math.min(MAX_BACKOFF_MS, options.backoffMs * 2 ** retry) * (0.5 + Math.random() / 2);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
