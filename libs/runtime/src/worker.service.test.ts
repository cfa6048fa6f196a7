import * as grpc from '@grpc/grpc-js';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import type { LearnGroupJob } from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import { BullMqTransport, handlerFor, JobProducer } from '@fathom/queue';
import { deleteQueuePrefix, samplePayloads, waitFor } from '@fathom/queue/testing';
import { PolicyClient, policyServing, type PolicySnapshot } from '@fathom/rpc';
import { z } from 'zod';
import { loadEnvConfig, serviceEnvShape } from './env-config';
import { startWorkerService, type WorkerParts, type WorkerService } from './worker.service';

const redisUrl = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const postgresUrl = `${process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432'}/postgres`;
const logger = createLogger({ service: 'test', level: 'silent' });

let service: WorkerService | undefined;
let prefix: string;
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await service?.close();
  service = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
  await deleteQueuePrefix(prefix, redisUrl);
});

/** The one policy version the test services serve over gRPC: a model with no tensors. */
const SNAPSHOT: PolicySnapshot = {
  runId: 'run-a',
  version: 3,
  step: 30,
  checkpointPath: null,
  configJson: '{}',
  tensors: [],
};

/** The parts of a learn-queue consumer that record what happens to them, serving the Policy service over gRPC. */
function recordingParts(events: string[], handled: LearnGroupJob[]): WorkerParts {
  return {
    queues: ['learn'],
    handlers: [handlerFor('learn.group', async (job) => void handled.push(job))],
    concurrency: { learn: 1 },
    grpc: {
      port: 0,
      ...policyServing({ latest: (runId) => (runId === SNAPSHOT.runId ? SNAPSHOT : undefined), get: () => undefined }),
    },
    start: () => events.push('started'),
    stop: async () => void events.push('stopped'),
    close: async () => void events.push('parts closed'),
  };
}

/** A worker service's config as its schema reads it from the environment: every other variable at its default. */
function configOf(httpPort = 0, env: Record<string, string> = {}) {
  prefix = `fathom-test-${process.pid}-${randomUUID().slice(0, 8)}`;
  return loadEnvConfig('test-service', z.object(serviceEnvShape(0)), {
    HTTP_PORT: String(httpPort),
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    DATABASE_URL: postgresUrl,
    INFRA_RETRY_S: '1',
    ...env,
  });
}

const nonLoopbackIPv4 = Object.values(networkInterfaces())
  .flat()
  .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal)?.address;

describe('a worker service on the machine’s Redis and Postgres', () => {
  it('consumes its jobs, serves /health and /metrics, and closes in order', async () => {
    const events: string[] = [];
    const handled: LearnGroupJob[] = [];
    const config = configOf();
    service = await startWorkerService({
      name: 'test-service',
      config,
      logger,
      infra: { healthQueue: 'learn' },
      build: async () => recordingParts(events, handled),
    });
    expect(events).toEqual(['started']);
    const policy = new PolicyClient(`127.0.0.1:${service.grpcPort}`, { retries: 0 });
    cleanups.push(async () => policy.close());
    expect((await policy.getLatest('run-a')).version).toBe(3);

    const transport = new BullMqTransport({ redisUrl, prefix });
    cleanups.push(() => transport.close());
    const job = samplePayloads('g1')['learn.group'];
    await new JobProducer(transport).enqueue('learn.group', job);
    await waitFor(() => handled.length === 1, 10_000);
    expect(handled[0]).toEqual(job);

    const base = `http://127.0.0.1:${service.httpPort}`;
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'healthy', checks: { redis: 'ok', postgres: 'ok' } });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('service="test-service"');
    expect(metrics).toContain('fathom_queue_jobs{');

    await service.close();
    service = undefined;
    expect(events).toEqual(['started', 'stopped', 'parts closed']);
    await expect(fetch(`${base}/health`)).rejects.toThrow();
    await expect(policy.getLatest('run-a')).rejects.toThrow(/UNAVAILABLE/);
  });

  it('serves gRPC on loopback only unless GRPC_HOST says otherwise', async () => {
    service = await startWorkerService({
      name: 'test-service',
      config: configOf(),
      logger,
      infra: { healthQueue: 'learn' },
      build: async () => recordingParts([], []),
    });
    const local = new PolicyClient(`127.0.0.1:${service.grpcPort}`, { retries: 0 });
    cleanups.push(async () => local.close());
    expect((await local.getLatest('run-a')).version).toBe(3);
    // Where the machine has a non-loopback address, the same port there is closed.
    if (nonLoopbackIPv4 === undefined) return;
    const remote = new PolicyClient(`${nonLoopbackIPv4}:${service.grpcPort}`, { retries: 0, deadlineMs: 2_000 });
    cleanups.push(async () => remote.close());
    await expect(remote.getLatest('run-a')).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
  });

  it('with GRPC_TOKEN answers only the calls that carry it, and UNAUTHENTICATED the others', async () => {
    const token = 'grpc-token-of-the-test-deployment';
    service = await startWorkerService({
      name: 'test-service',
      config: configOf(0, { GRPC_TOKEN: token }),
      logger,
      infra: { healthQueue: 'learn' },
      build: async () => recordingParts([], []),
    });
    const address = `127.0.0.1:${service.grpcPort}`;
    const client = (options: { token?: string }) => {
      const policy = new PolicyClient(address, { retries: 0, ...options });
      cleanups.push(async () => policy.close());
      return policy;
    };
    await expect(client({}).getLatest('run-a')).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      message: expect.stringMatching(/needs "authorization: Bearer <GRPC_TOKEN>" metadata/),
    });
    await expect(client({ token: `${token}!` }).getLatest('run-a')).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
      message: expect.stringMatching(/not this server's GRPC_TOKEN/),
    });
    expect((await client({ token }).getLatest('run-a')).version).toBe(3);
  });

  it('serves no gRPC when its parts name none', async () => {
    const { grpc: _served, ...parts } = recordingParts([], []);
    service = await startWorkerService({
      name: 'test-service',
      config: configOf(),
      logger,
      infra: { healthQueue: 'learn' },
      build: async () => parts,
    });
    expect(service.grpcPort).toBeNull();
    expect((await fetch(`http://127.0.0.1:${service.httpPort}/health`)).status).toBe(200);
  });

  it('closes what it had opened when its HTTP port is taken', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => taken.close(resolve)));
    const events: string[] = [];
    await expect(
      startWorkerService({
        name: 'test-service',
        config: configOf((taken.address() as AddressInfo).port),
        logger,
        infra: { healthQueue: 'learn' },
        build: async () => recordingParts(events, []),
      }),
    ).rejects.toThrow(/EADDRINUSE/);
    expect(events).toEqual(['stopped', 'parts closed']);
  });
});
