import * as grpc from '@grpc/grpc-js';
import { createLogger } from '@fathom/observability';
import { afterEach, describe, expect, it } from 'vitest';
import { RpcError, StatusError } from '../errors';
import type { PolicyHandlers } from '../generated/fathom/policy/v1/Policy';
import { loadService } from '../protos';
import { bindServer, shutdownServer } from '../server';
import { PolicyClient } from './policy.client';
import { PolicyController, PolicyServing, startPolicyServer } from './policy.server';
import { tensorBytes, type PolicySnapshot, type PolicySource } from './snapshot';

const logger = createLogger({ service: 'rpc-test', level: 'silent' });
const KiB = 1024;

/** A PolicySource over a fixed set of snapshots; versions listed in `evicted` were produced and dropped. */
class MapPolicySource implements PolicySource {
  constructor(
    private readonly snapshots: PolicySnapshot[],
    private readonly evicted: { runId: string; version: number }[] = [],
  ) {}

  latest(runId: string): PolicySnapshot | undefined {
    return this.snapshots.filter((s) => s.runId === runId).sort((a, b) => b.version - a.version)[0];
  }

  get(runId: string, version: number): PolicySnapshot | 'evicted' | undefined {
    if (this.evicted.some((e) => e.runId === runId && e.version === version)) return 'evicted';
    return this.snapshots.find((s) => s.runId === runId && s.version === version);
  }
}

/** Deterministic values that include the bit patterns a lossy transfer would mangle (NaN payloads, -0, denormals). */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  const bits = new Uint32Array(out.buffer);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bits[i] = x >>> 0;
  }
  return out;
}

function makeSnapshot(version: number): PolicySnapshot {
  return {
    runId: 'run-a',
    version,
    step: version * 10,
    checkpointPath: version === 2 ? '/ckpt/run-a/step-20' : null,
    configJson: JSON.stringify({ model_type: 'qwen2', hidden_size: 64 }),
    tensors: [
      { name: 'model.embed_tokens.weight', shape: [3, 5], data: values(15, 7 + version) },
      { name: 'model.empty', shape: [0], data: new Float32Array(0) },
      // 3 MiB: twelve 256 KiB chunks, the first and last of which also carry bytes of the neighbouring tensors.
      { name: 'model.layers.0.mlp.up_proj.weight', shape: [768, 1024], data: values(768 * 1024, 99 + version) },
      { name: 'model.norm.weight', shape: [7], data: Float32Array.from([1, -0, NaN, Infinity, -Infinity, 1e-45, 0.5]) },
    ],
  };
}

function sameBits(a: Float32Array, b: Float32Array): boolean {
  return tensorBytes(a).equals(tensorBytes(b));
}

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function serve(source: PolicySource, maxChunkBytes?: number) {
  const server = await startPolicyServer({ host: '127.0.0.1', port: 0, source, logger, maxChunkBytes });
  cleanup.push(() => server.close());
  return server;
}

function client(port: number, options?: ConstructorParameters<typeof PolicyClient>[1]): PolicyClient {
  const c = new PolicyClient(`127.0.0.1:${port}`, options);
  cleanup.push(() => c.close());
  return c;
}

/**
 * A test double of the Policy server: a plain grpc-js server whose handlers are `wrap(real)`, where `real` adapts the
 * real PolicyController to grpc-js handlers, so that a scripted fault can stand in front of it.
 */
async function serveScripted(source: PolicySource, wrap: (real: PolicyHandlers) => PolicyHandlers): Promise<number> {
  const controller = new PolicyController(new PolicyServing(source), logger);
  const status = (error: StatusError) => ({ code: error.code, details: error.message });
  const real: PolicyHandlers = {
    GetLatest: (call, callback) =>
      void controller.getLatest(call.request).then(
        (info) => callback(null, info),
        (error: StatusError) => callback(status(error)),
      ),
    GetWeights: (call) =>
      void controller.getWeights(call).catch((error: StatusError) => call.emit('error', status(error))),
  };
  const server = new grpc.Server();
  server.addService(loadService('policy.proto', 'fathom.policy.v1.Policy').service, wrap(real));
  const port = await bindServer(server, '127.0.0.1', 0);
  cleanup.push(() => shutdownServer(server, 500));
  return port;
}

async function rejection(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('Policy service over gRPC', () => {
  it('streams weights bit-exactly in chunks of the size asked for, and describes the version', async () => {
    const snapshots = [makeSnapshot(1), makeSnapshot(2)];
    const dataChunkSizes: number[] = [];
    const port = await serveScripted(new MapPolicySource(snapshots), (real) => ({
      ...real,
      GetWeights(call) {
        const write = call.write.bind(call);
        call.write = ((chunk: { data?: Buffer }) => {
          if (chunk.data !== undefined) dataChunkSizes.push(chunk.data.length);
          return write(chunk);
        }) as typeof call.write;
        real.GetWeights(call);
      },
    }));
    const policy = client(port);

    const latest = await policy.getLatest('run-a');
    expect(latest).toMatchObject({ runId: 'run-a', version: 2, step: 20, checkpointPath: '/ckpt/run-a/step-20' });
    const totalBytes = snapshots[1].tensors.reduce((n, t) => n + t.data.byteLength, 0);
    expect(latest.totalBytes).toBe(totalBytes);
    expect(latest.sha256).toMatch(/^[0-9a-f]{64}$/);

    const weights = await policy.getWeights('run-a', 1, { maxChunkBytes: 256 * KiB });
    expect(weights.info).toMatchObject({ runId: 'run-a', version: 1, step: 10, checkpointPath: null });
    expect(weights.configJson).toBe(snapshots[0].configJson);
    expect([...weights.params.keys()]).toEqual(snapshots[0].tensors.map((t) => t.name));
    for (const tensor of snapshots[0].tensors) {
      expect(weights.shapes.get(tensor.name)).toEqual(tensor.shape);
      expect(sameBits(weights.params.get(tensor.name)!, tensor.data), tensor.name).toBe(true);
    }
    expect(dataChunkSizes).toHaveLength(Math.ceil(totalBytes / (256 * KiB)));
    expect(dataChunkSizes.slice(0, -1).every((n) => n === 256 * KiB)).toBe(true);

    // The server's default chunk size (1 MiB), and a second version that differs from the first.
    const v2 = await policy.getWeights('run-a', 2);
    expect(v2.info.sha256).toBe(latest.sha256);
    expect(sameBits(v2.params.get('model.layers.0.mlp.up_proj.weight')!, snapshots[1].tensors[2].data)).toBe(true);
    expect(
      sameBits(v2.params.get('model.embed_tokens.weight')!, weights.params.get('model.embed_tokens.weight')!),
    ).toBe(false);
    expect(dataChunkSizes.slice(-4)).toEqual([1 << 20, 1 << 20, 1 << 20, totalBytes - 3 * (1 << 20)]);
  });

  it('with a token, streams weights only to a client that sends it; others get UNAUTHENTICATED', async () => {
    const token = 'policy-token-of-the-test-deployment';
    const source = new MapPolicySource([makeSnapshot(1)]);
    const server = await startPolicyServer({ host: '127.0.0.1', port: 0, source, logger, token });
    cleanup.push(() => server.close());
    const refused = { code: grpc.status.UNAUTHENTICATED };
    for (const options of [{}, { token: 'another-token-of-the-same-size!!!!' }]) {
      const stranger = client(server.port, { retries: 0, ...options });
      await expect(stranger.getLatest('run-a')).rejects.toMatchObject(refused);
      await expect(stranger.getWeights('run-a', 1)).rejects.toMatchObject(refused);
    }
    const weights = await client(server.port, { token }).getWeights('run-a', 1);
    expect(weights.info.version).toBe(1);
    expect([...weights.params.keys()]).toContain('model.norm.weight');
  });

  it('answers NOT_FOUND, FAILED_PRECONDITION and INVALID_ARGUMENT, naming the run and version', async () => {
    const server = await serve(new MapPolicySource([makeSnapshot(3)], [{ runId: 'run-a', version: 1 }]), 512 * KiB);
    const policy = client(server.port, { retries: 3, backoffMs: 1 });

    const unknownRun = await rejection(policy.getLatest('run-zzz'));
    expect(unknownRun.code).toBe(grpc.status.NOT_FOUND);
    expect(unknownRun.message).toMatch(/GetLatest run "run-zzz": NOT_FOUND: unknown run "run-zzz"/);

    const unknownVersion = await rejection(policy.getWeights('run-a', 7));
    expect(unknownVersion.code).toBe(grpc.status.NOT_FOUND);
    expect(unknownVersion.message).toMatch(/GetWeights run "run-a" version 7: NOT_FOUND: .*no version 7/);

    const evicted = await rejection(policy.getWeights('run-a', 1));
    expect(evicted.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(evicted.message).toMatch(/version 1 is no longer kept/);

    expect((await rejection(policy.getLatest(''))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await rejection(policy.getWeights('', 3))).message).toMatch(/INVALID_ARGUMENT: run_id is empty/);
    const tooSmall = await rejection(policy.getWeights('run-a', 3, { maxChunkBytes: 100 }));
    expect(tooSmall.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(tooSmall.message).toMatch(/max_chunk_bytes must be 0 \(server default\) or in \[1024, 524288\], got 100/);
    const overCap = await rejection(policy.getWeights('run-a', 3, { maxChunkBytes: 1 << 20 }));
    expect(overCap.code).toBe(grpc.status.INVALID_ARGUMENT);

    // None of those is retried or breaks the server: the next call succeeds.
    expect((await policy.getWeights('run-a', 3)).info.version).toBe(3);
  });

  it('detects weights that do not match the advertised SHA-256 (DATA_LOSS)', async () => {
    const snapshot = makeSnapshot(1);
    const server = await serve(new MapPolicySource([snapshot]));
    const policy = client(server.port);
    await policy.getLatest('run-a'); // the server hashes the snapshot once and caches the digest
    snapshot.tensors[2].data[123_456] += 1; // memory corrupted after hashing: the bytes sent no longer match
    const error = await rejection(policy.getWeights('run-a', 1, { maxChunkBytes: 256 * KiB }));
    expect(error.code).toBe(grpc.status.DATA_LOSS);
    expect(error.message).toMatch(/GetWeights run "run-a" version 1: DATA_LOSS: SHA-256 mismatch/);
  });

  it('retries UNAVAILABLE with backoff, and gives up after the configured retries', async () => {
    let calls = 0;
    let unavailableLeft = 2;
    const port = await serveScripted(new MapPolicySource([makeSnapshot(1)]), (real) => ({
      GetLatest(call, callback) {
        calls++;
        if (unavailableLeft-- > 0) callback({ code: grpc.status.UNAVAILABLE, details: 'learner starting' });
        else real.GetLatest(call, callback);
      },
      GetWeights(call) {
        calls++;
        if (unavailableLeft-- > 0) call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'learner starting' });
        else real.GetWeights(call);
      },
    }));

    expect((await client(port, { retries: 2, backoffMs: 5 }).getLatest('run-a')).version).toBe(1);
    expect(calls).toBe(3);

    calls = 0;
    unavailableLeft = 1;
    expect((await client(port, { retries: 2, backoffMs: 5 }).getWeights('run-a', 1)).params.size).toBe(4);
    expect(calls).toBe(2);

    calls = 0;
    unavailableLeft = 10;
    const error = await rejection(client(port, { retries: 2, backoffMs: 5 }).getWeights('run-a', 1));
    expect(error.code).toBe(grpc.status.UNAVAILABLE);
    expect(error.message).toMatch(/version 1: UNAVAILABLE: learner starting \(after 3 attempts\)/);
    expect(calls).toBe(3);
  });

  it('reports UNAVAILABLE when nothing listens (a closed server)', async () => {
    const server = await startPolicyServer({
      host: '127.0.0.1',
      port: 0,
      source: new MapPolicySource([]),
      logger,
    });
    await server.close();
    const error = await rejection(client(server.port, { retries: 1, backoffMs: 1 }).getLatest('run-a'));
    expect(error.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('enforces the deadline: GetLatest retries DEADLINE_EXCEEDED, GetWeights does not', async () => {
    let calls = 0;
    // Never answers: every call runs into the client's deadline.
    const port = await serveScripted(new MapPolicySource([]), () => ({
      GetLatest() {
        calls++;
      },
      GetWeights() {
        calls++;
      },
    }));
    const policy = client(port, { deadlineMs: 200, retries: 1, backoffMs: 1 });

    const latest = await rejection(policy.getLatest('run-a'));
    expect(latest.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(calls).toBe(2);

    calls = 0;
    const weights = await rejection(policy.getWeights('run-a', 1));
    expect(weights.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(weights.message).toMatch(/GetWeights run "run-a" version 1: DEADLINE_EXCEEDED/);
    expect(calls).toBe(1);
  });
});
