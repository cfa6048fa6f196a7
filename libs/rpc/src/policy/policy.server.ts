import * as grpc from '@grpc/grpc-js';
import { Controller, Inject, UseFilters } from '@nestjs/common';
import { GrpcMethod, GrpcStreamCall } from '@nestjs/microservices';
import { Logger } from '@fathom/observability';
import { StatusError } from '../errors';
import type { GetWeightsRequest__Output } from '../generated/fathom/policy/v1/GetWeightsRequest';
import type { LatestRequest__Output } from '../generated/fathom/policy/v1/LatestRequest';
import type { PolicyVersionInfo } from '../generated/fathom/policy/v1/PolicyVersionInfo';
import type { WeightsChunk } from '../generated/fathom/policy/v1/WeightsChunk';
import { startGrpcService, type GrpcServiceHandle, type GrpcServing } from '../nest/grpc.service';
import { StatusErrorFilter } from '../nest/status.filter';
import { dataChunks, snapshotLayout, type PolicySnapshot, type PolicySource } from './snapshot';

/** Data chunk size when the client asks for the server's default (max_chunk_bytes = 0). */
export const DEFAULT_CHUNK_BYTES = 1 << 20;
/** Largest data chunk the server sends unless configured otherwise; a larger request is INVALID_ARGUMENT. */
export const DEFAULT_MAX_CHUNK_BYTES = 4 << 20;
/** Smallest data chunk a client may ask for: smaller ones would cost a message per few bytes. */
export const MIN_CHUNK_BYTES = 1 << 10;

export interface PolicyServerOptions {
  host: string;
  /** 0 binds any free port; the bound one is returned. */
  port: number;
  source: PolicySource;
  logger: Logger;
  /** Cap on the data chunk size a client may ask for (default 4 MiB). */
  maxChunkBytes?: number;
  /** The shared token of the internal gRPC services (GRPC_TOKEN; see GrpcTransportOptions.token). */
  token?: string;
}

export type PolicyServerHandle = GrpcServiceHandle;

/** What the Policy controller serves: the learner's snapshots, and the cap on the data chunk a client may ask for. */
export class PolicyServing {
  constructor(
    readonly source: PolicySource,
    readonly maxChunkBytes = DEFAULT_MAX_CHUNK_BYTES,
  ) {
    if (!Number.isInteger(maxChunkBytes) || maxChunkBytes < MIN_CHUNK_BYTES) {
      throw new Error(`maxChunkBytes must be an integer >= ${MIN_CHUNK_BYTES}, got ${maxChunkBytes}`);
    }
  }
}

/**
 * proto/policy.proto over a PolicySource: GetLatest, and GetWeights as one header chunk (config and tensor manifest)
 * followed by data chunks of the concatenated F32 tensor bytes in manifest order. Statuses: INVALID_ARGUMENT (empty
 * run_id, max_chunk_bytes outside [1 KiB, cap]), NOT_FOUND, FAILED_PRECONDITION (evicted version), UNAVAILABLE (the
 * server is closing), INTERNAL (the source threw or holds a malformed snapshot; logged).
 */
@Controller()
@UseFilters(StatusErrorFilter)
export class PolicyController {
  constructor(
    @Inject(PolicyServing) private readonly serving: PolicyServing,
    @Inject(Logger) private readonly logger: Logger,
  ) {}

  @GrpcMethod('Policy', 'GetLatest')
  async getLatest(request: LatestRequest__Output): Promise<PolicyVersionInfo> {
    const runId = requireRunId(request.run_id);
    const snapshot = await this.serving.source.latest(runId);
    if (snapshot === undefined) throw new StatusError(grpc.status.NOT_FOUND, `unknown run "${runId}"`);
    return versionInfo(snapshot);
  }

  /** Streams the weights itself, waiting for the stream to drain, so that a slow client never buffers a whole model. */
  @GrpcStreamCall('Policy', 'GetWeights')
  async getWeights(call: grpc.ServerWritableStream<GetWeightsRequest__Output, WeightsChunk>): Promise<void> {
    const runId = requireRunId(call.request.run_id);
    const version = call.request.version ?? 0;
    const chunkBytes = chunkSize(call.request.max_chunk_bytes ?? 0, this.serving.maxChunkBytes);
    const snapshot = await this.serving.source.get(runId, version);
    if (snapshot === undefined) {
      throw new StatusError(grpc.status.NOT_FOUND, `run "${runId}" has no version ${version}`);
    }
    if (snapshot === 'evicted') {
      throw new StatusError(
        grpc.status.FAILED_PRECONDITION,
        `run "${runId}" version ${version} is no longer kept by the learner; ask GetLatest for a newer one`,
      );
    }
    const layout = snapshotLayout(snapshot);
    await send(call, {
      part: 'header',
      header: {
        version: versionInfo(snapshot),
        config_json: snapshot.configJson,
        tensors: layout.tensors.map((t) => ({
          name: t.name,
          dtype: 'F32',
          shape: t.shape,
          byte_offset: t.byteOffset,
          byte_length: t.byteLength,
        })),
        adapters_only: false,
      },
    });
    for (const chunk of dataChunks(snapshot, chunkBytes)) {
      if (call.cancelled) return;
      await send(call, { part: 'data', data: chunk.data, offset: chunk.offset });
    }
    call.end();
    this.logger.debug('Policy weights sent', { runId, version, bytes: layout.totalBytes, chunkBytes });
  }
}

/** The Policy service over a PolicySource, as the learner serves it. */
export function policyServing(source: PolicySource, maxChunkBytes?: number): GrpcServing {
  return {
    services: [{ proto: 'policy.proto', name: 'fathom.policy.v1.Policy' }],
    controllers: [PolicyController],
    providers: [{ provide: PolicyServing, useValue: new PolicyServing(source, maxChunkBytes) }],
  };
}

/** Serves the Policy service alone from a PolicySource on host:port (tests, benches). */
export function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServerHandle> {
  return startGrpcService({ ...options, ...policyServing(options.source, options.maxChunkBytes) });
}

function requireRunId(runId: string | undefined): string {
  if (runId === undefined || runId === '') throw new StatusError(grpc.status.INVALID_ARGUMENT, 'run_id is empty');
  return runId;
}

/** The data chunk size for a request's max_chunk_bytes (0 = the server's default), or INVALID_ARGUMENT. */
function chunkSize(requested: number, cap: number): number {
  if (requested === 0) return Math.min(DEFAULT_CHUNK_BYTES, cap);
  if (requested < MIN_CHUNK_BYTES || requested > cap) {
    throw new StatusError(
      grpc.status.INVALID_ARGUMENT,
      `max_chunk_bytes must be 0 (server default) or in [${MIN_CHUNK_BYTES}, ${cap}], got ${requested}`,
    );
  }
  return requested;
}

function versionInfo(snapshot: PolicySnapshot): PolicyVersionInfo {
  const layout = snapshotLayout(snapshot);
  return {
    run_id: snapshot.runId,
    version: snapshot.version,
    step: snapshot.step,
    ...(snapshot.checkpointPath === null ? {} : { checkpoint_path: snapshot.checkpointPath }),
    total_bytes: layout.totalBytes,
    sha256: layout.sha256,
  };
}

/**
 * Writes one chunk, waiting for the stream to drain when its buffer is full so a slow client never makes the
 * server buffer a whole model. Resolves early when the client goes away.
 */
function send(call: grpc.ServerWritableStream<unknown, WeightsChunk>, chunk: WeightsChunk): Promise<void> {
  if (call.write(chunk) || call.cancelled) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      call.off('drain', done);
      call.off('cancelled', done);
      resolve();
    };
    call.on('drain', done);
    call.on('cancelled', done);
  });
}
