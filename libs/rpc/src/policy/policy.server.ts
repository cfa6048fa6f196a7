import * as grpc from '@grpc/grpc-js';
import type { Logger } from '@fathom/observability';
import { serverError, statusName, StatusError } from '../errors';
import type { PolicyHandlers } from '../generated/fathom/policy/v1/Policy';
import type { PolicyVersionInfo } from '../generated/fathom/policy/v1/PolicyVersionInfo';
import type { WeightsChunk } from '../generated/fathom/policy/v1/WeightsChunk';
import { loadService } from '../protos';
import { bindServer, createServer, shutdownServer } from '../server';
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
}

export interface PolicyHandlerOptions extends Pick<PolicyServerOptions, 'source' | 'logger' | 'maxChunkBytes'> {
  /** True once the server is shutting down: new calls are answered UNAVAILABLE. */
  isClosing: () => boolean;
}

export interface PolicyServerHandle {
  port: number;
  /** Answers new calls UNAVAILABLE, lets streams in flight finish (up to a grace period), then stops. */
  close(): Promise<void>;
}

/**
 * Serves proto/policy.proto from a PolicySource on host:port; see `createPolicyHandlers` for the protocol and
 * statuses. `close()` makes new calls UNAVAILABLE at once, then shuts the server down.
 */
export async function startPolicyServer(options: PolicyServerOptions): Promise<PolicyServerHandle> {
  let closing = false;
  const handlers = createPolicyHandlers({ ...options, isClosing: () => closing });
  const server = createServer();
  server.addService(loadService('policy.proto', 'fathom.policy.v1.Policy').service, handlers);
  const port = await bindServer(server, options.host, options.port);
  options.logger.info('gRPC Policy listening', { port });
  return {
    port,
    async close() {
      closing = true;
      await shutdownServer(server);
    },
  };
}

/**
 * Serves proto/policy.proto from a PolicySource: GetLatest, and GetWeights as one header chunk (config and
 * tensor manifest) followed by data chunks of the concatenated F32 tensor bytes in manifest order. Statuses:
 * INVALID_ARGUMENT (empty run_id, max_chunk_bytes outside [1 KiB, cap]), NOT_FOUND, FAILED_PRECONDITION (evicted
 * version), UNAVAILABLE (closing), INTERNAL (the source threw or holds a malformed snapshot; logged).
 */
export function createPolicyHandlers(options: PolicyHandlerOptions): PolicyHandlers {
  const maxChunkBytes = options.maxChunkBytes ?? DEFAULT_MAX_CHUNK_BYTES;
  if (!Number.isInteger(maxChunkBytes) || maxChunkBytes < MIN_CHUNK_BYTES) {
    throw new Error(`maxChunkBytes must be an integer >= ${MIN_CHUNK_BYTES}, got ${maxChunkBytes}`);
  }
  const { source, logger, isClosing } = options;

  const failure = (error: unknown, call: string): Partial<grpc.ServiceError> => {
    if (error instanceof StatusError) {
      logger.debug('Policy call refused', { call, code: statusName(error.code), reason: error.message });
      return serverError(error.code, error.message);
    }
    logger.error('Policy call failed', { call, err: error });
    return serverError(grpc.status.INTERNAL, `${call}: ${error instanceof Error ? error.message : String(error)}`);
  };

  return {
    GetLatest(call, callback) {
      const runId = call.request.run_id ?? '';
      const context = `GetLatest run "${runId}"`;
      (async () => {
        if (isClosing()) throw new StatusError(grpc.status.UNAVAILABLE, 'the Policy server is shutting down');
        if (runId === '') throw new StatusError(grpc.status.INVALID_ARGUMENT, 'run_id is empty');
        const snapshot = await source.latest(runId);
        if (snapshot === undefined) throw new StatusError(grpc.status.NOT_FOUND, `unknown run "${runId}"`);
        return versionInfo(snapshot);
      })().then(
        (info) => callback(null, info),
        (error: unknown) => callback(failure(error, context)),
      );
    },

    GetWeights(call) {
      const runId = call.request.run_id ?? '';
      const version = call.request.version ?? 0;
      const context = `GetWeights run "${runId}" version ${version}`;
      (async () => {
        if (isClosing()) throw new StatusError(grpc.status.UNAVAILABLE, 'the Policy server is shutting down');
        if (runId === '') throw new StatusError(grpc.status.INVALID_ARGUMENT, 'run_id is empty');
        const chunkBytes = chunkSize(call.request.max_chunk_bytes ?? 0, maxChunkBytes);
        const snapshot = await source.get(runId, version);
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
        logger.debug('Policy weights sent', { runId, version, bytes: layout.totalBytes, chunkBytes });
      })().catch((error: unknown) => {
        if (!call.cancelled) call.emit('error', failure(error, context));
      });
    },
  };
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
