import * as grpc from '@grpc/grpc-js';
import { tokenClientOptions } from '../auth';
import { RpcError } from '../errors';
import type { PolicyClient as PolicyGrpcClient } from '../generated/fathom/policy/v1/Policy';
import type { PolicyVersionInfo__Output } from '../generated/fathom/policy/v1/PolicyVersionInfo';
import type { WeightsChunk__Output } from '../generated/fathom/policy/v1/WeightsChunk';
import { loadService } from '../protos';
import { withRetries, type RetryOptions } from '../retry';
import {
  policyVersionOf,
  TransferError,
  WeightsAssembly,
  type PolicyVersion,
  type PolicyWeights,
} from './weights-assembly';

export interface PolicyClientOptions {
  /** Deadline of each attempt (a whole GetWeights stream is one attempt). Default 30 s. */
  deadlineMs?: number;
  /** Attempts after the first. Default 4. */
  retries?: number;
  /** Backoff before the first retry, doubled for each further one. Default 200 ms. */
  backoffMs?: number;
  /** The learner's GRPC_TOKEN, sent with every call; unset: none. */
  token?: string;
}

/** Largest message the client accepts: far above any data chunk the server sends (capped at a few MiB). */
const MAX_RECEIVE_BYTES = 64 << 20;
/**
 * HTTP/2 flow-control window the client grants. With the 64 KiB default the server stalls for a WINDOW_UPDATE
 * round trip every 64 KiB of weights; a window of a few chunks keeps the stream moving.
 */
const FLOW_CONTROL_WINDOW_BYTES = 8 << 20;

/**
 * Client of the learner's Policy service. Every attempt has a deadline; attempts that fail with UNAVAILABLE (the
 * learner starting or restarting) are retried with exponential backoff, GetLatest also on DEADLINE_EXCEEDED.
 * Other failures reject at once with an RpcError carrying the gRPC code and the run/version asked for.
 */
export class PolicyClient {
  private readonly client: PolicyGrpcClient;
  private readonly deadlineMs: number;
  private readonly latestRetry: RetryOptions;
  private readonly weightsRetry: RetryOptions;

  constructor(address: string, options: PolicyClientOptions = {}) {
    const Policy = loadService('policy.proto', 'fathom.policy.v1.Policy');
    this.client = new Policy(address, grpc.credentials.createInsecure(), {
      ...tokenClientOptions(options.token),
      'grpc.max_receive_message_length': MAX_RECEIVE_BYTES,
      'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    });
    this.deadlineMs = options.deadlineMs ?? 30_000;
    const retries = options.retries ?? 4;
    const backoffMs = options.backoffMs ?? 200;
    this.latestRetry = {
      retries,
      backoffMs,
      retryOn: new Set([grpc.status.UNAVAILABLE, grpc.status.DEADLINE_EXCEEDED]),
    };
    // A GetWeights that hit its deadline already moved megabytes; repeating it blindly would only do that again.
    this.weightsRetry = { retries, backoffMs, retryOn: new Set([grpc.status.UNAVAILABLE]) };
  }

  /** The newest version of a run (NOT_FOUND for an unknown run). */
  getLatest(runId: string): Promise<PolicyVersion> {
    return withRetries(`GetLatest run "${runId}"`, this.latestRetry, () =>
      new Promise<PolicyVersionInfo__Output>((resolve, reject) =>
        this.client.GetLatest({ run_id: runId }, { deadline: this.deadline() }, (err, reply) =>
          err || reply === undefined ? reject(err ?? new Error('empty reply')) : resolve(reply),
        ),
      ).then(policyVersionOf),
    );
  }

  /**
   * The weights of one version, written chunk by chunk into one preallocated buffer and verified (every byte
   * received, SHA-256 equal to the header's). A failed check rejects with DATA_LOSS.
   * @param maxChunkBytes data chunk size to ask for; 0 (default) takes the server's default (1 MiB).
   */
  getWeights(runId: string, version: number, { maxChunkBytes = 0 } = {}): Promise<PolicyWeights> {
    const context = `GetWeights run "${runId}" version ${version}`;
    return withRetries(context, this.weightsRetry, () => this.streamWeights(runId, version, maxChunkBytes, context));
  }

  close(): void {
    this.client.close();
  }

  private deadline(): Date {
    return new Date(Date.now() + this.deadlineMs);
  }

  private streamWeights(
    runId: string,
    version: number,
    maxChunkBytes: number,
    context: string,
  ): Promise<PolicyWeights> {
    return new Promise((resolve, reject) => {
      const stream = this.client.GetWeights(
        { run_id: runId, version, max_chunk_bytes: maxChunkBytes },
        { deadline: this.deadline() },
      );
      let assembly: WeightsAssembly | null = null;
      let settled = false;
      const fail = (error: unknown) => {
        if (settled) return;
        settled = true;
        stream.cancel();
        reject(error instanceof TransferError ? new RpcError(error.code, context, error.message) : error);
      };
      stream.on('data', (chunk: WeightsChunk__Output) => {
        try {
          if (chunk.part === 'header' && chunk.header !== undefined) {
            if (assembly !== null) throw new TransferError(grpc.status.DATA_LOSS, 'a second header chunk');
            assembly = WeightsAssembly.fromHeader(chunk.header);
          } else {
            if (assembly === null) throw new TransferError(grpc.status.DATA_LOSS, 'data before the header chunk');
            assembly.write(chunk.offset ?? 0, chunk.data ?? new Uint8Array(0));
          }
        } catch (error) {
          fail(error);
        }
      });
      stream.on('error', fail);
      stream.on('end', () => {
        if (settled) return;
        try {
          if (assembly === null) throw new TransferError(grpc.status.DATA_LOSS, 'the stream ended without a header');
          const weights = assembly.finish();
          settled = true;
          resolve(weights);
        } catch (error) {
          fail(error);
        }
      });
    });
  }
}
