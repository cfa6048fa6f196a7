/**
 * Queue-layer benchmark: what validation, serialisation and Redis add per GRPO group, for the BullMQ transport
 * (the machine's Redis, a fresh key prefix deleted afterwards) and the in-process transport.
 *
 *   node --no-node-snapshot --import tsx bench/queue/queue.bench.ts [--jobs 2000] [--roundtrips 200] [--tokens 2048]
 *
 * Prints one JSON object per measurement.
 */
import {
  groupId,
  MESSAGE_SCHEMAS,
  type EpisodeTrajectory,
  type JobName,
  type RewardGroupJob,
  type RolloutGroupJob,
} from '@fathom/contracts';
import { createLogger } from '@fathom/observability';
import {
  BullMqTransport,
  handlerFor,
  InProcessTransport,
  JobConsumer,
  JobProducer,
  type JobTransport,
} from '@fathom/queue';
import { deleteQueuePrefix } from '@fathom/queue/testing';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    jobs: { type: 'string', default: '2000' },
    roundtrips: { type: 'string', default: '200' },
    tokens: { type: 'string', default: '2048' },
    group: { type: 'string', default: '8' },
    redis: { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
  },
});
const JOBS = Number(args.jobs);
const ROUNDTRIPS = Number(args.roundtrips);
const TOKENS = Number(args.tokens);
const G = Number(args.group);
const logger = createLogger({ service: 'queue-bench', level: 'silent' });

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const round = (x: number) => Math.round(x * 1000) / 1000;
const emit = (record: object) => process.stdout.write(`${JSON.stringify(record)}\n`);

function rolloutJob(i: number, runId: string): RolloutGroupJob {
  return { runId, step: 1, groupId: groupId(1, i), taskId: `task-${i}`, policyVersion: 0, G, seed: i };
}

/** A reward.group job of G trajectories of TOKENS tokens each (the size a rollout worker really sends). */
function turn(completion: string, action: 'code' | 'answer', observation: string | null) {
  const finishReason = 'stop_token' as const;
  return {
    completion,
    action,
    observation,
    completionTokens: 100,
    sandboxError: null,
    finishReason,
    generationMs: 5,
    envMs: 1,
  };
}

function rewardJob(i: number, runId: string): RewardGroupJob {
  const mask = Array.from({ length: TOKENS }, (_, t) => t % 2);
  const trajectory = (sampleIndex: number): EpisodeTrajectory => ({
    taskId: `task-${i}`,
    sampleIndex,
    attempt: 0,
    status: 'ok',
    stopReason: 'answer',
    turns: [turn('x'.repeat(400), 'code', 'o'.repeat(400)), turn('<answer>42</answer>', 'answer', null)],
    answer: '42',
    ids: Array.from({ length: TOKENS }, (_, t) => (t * 31) % 260),
    logprobs: mask.map((m, t) => (m === 0 ? 0 : -((t % 97) / 13))),
    mask,
    promptTokens: 500,
    tokens: { completion: TOKENS / 2, observation: TOKENS / 2 - 500, subcall: 0 },
    recursionTree: {
      depth: 0,
      kind: 'root',
      prompt: 'p'.repeat(100),
      chunkChars: 800_000,
      answer: '42',
      promptTokens: TOKENS / 2,
      completionTokens: TOKENS / 2,
      latencyMs: 10,
      turns: 2,
      children: [],
    },
    policyVersion: 0,
    trainSubcalls: false,
    timings: { generationMs: 10, envMs: 1, totalMs: 11 },
  });
  return {
    runId,
    step: 1,
    groupId: groupId(1, i),
    taskId: `task-${i}`,
    policyVersion: 0,
    trajectories: Array.from({ length: G }, (_, s) => trajectory(s)),
    excluded: [],
    infraFailures: [],
    generationMs: 10,
    weightSyncMs: 0,
  };
}

function benchValidation(): void {
  const job = rewardJob(0, 'run-bench');
  const bytes = Buffer.byteLength(JSON.stringify(job));
  const times: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    MESSAGE_SCHEMAS['reward.group'].parse(job);
    times.push(performance.now() - t0);
  }
  const ser: number[] = [];
  for (let i = 0; i < 50; i++) {
    const t0 = performance.now();
    JSON.parse(JSON.stringify(job));
    ser.push(performance.now() - t0);
  }
  emit({
    metric: 'reward_group_validate',
    G,
    tokens: TOKENS,
    payload_bytes: bytes,
    p50_ms: round(quantile(times, 0.5)),
    json_roundtrip_p50_ms: round(quantile(ser, 0.5)),
  });
}

/** Sequential enqueue → handler-start latency, one job at a time. */
async function benchRoundtrip(
  label: string,
  transport: JobTransport,
  name: JobName,
  make: (i: number) => unknown,
  n: number,
) {
  const producer = new JobProducer(transport);
  let resolveNext: (() => void) | undefined;
  const consumer = new JobConsumer({
    transport,
    queues: [name === 'rollout.group' ? 'rollout' : 'reward'],
    handlers: [handlerFor(name, async () => resolveNext?.())],
    logger,
  });
  consumer.start();
  const latencies: number[] = [];
  for (let i = 0; i < n; i++) {
    const arrived = new Promise<void>((resolve) => (resolveNext = resolve));
    const t0 = performance.now();
    await producer.enqueue(name, make(i) as never);
    await arrived;
    latencies.push(performance.now() - t0);
  }
  await consumer.close();
  emit({
    metric: 'roundtrip',
    transport: label,
    job: name,
    n,
    p50_ms: round(quantile(latencies, 0.5)),
    p99_ms: round(quantile(latencies, 0.99)),
  });
}

/** enqueueMany of `n` rollout jobs, then drain them with concurrency 8: jobs/s each way. */
async function benchThroughput(label: string, transport: JobTransport, runId: string) {
  const producer = new JobProducer(transport);
  const payloads = Array.from({ length: JOBS }, (_, i) => rolloutJob(i, runId));
  const t0 = performance.now();
  await producer.enqueueMany('rollout.group', payloads);
  const enqueueS = (performance.now() - t0) / 1000;
  let done = 0;
  let finish: () => void = () => {};
  const all = new Promise<void>((resolve) => (finish = resolve));
  const consumer = new JobConsumer({
    transport,
    queues: ['rollout'],
    handlers: [handlerFor('rollout.group', async () => void (++done === JOBS && finish()))],
    concurrency: { rollout: 8 },
    logger,
  });
  const t1 = performance.now();
  consumer.start();
  await all;
  const drainS = (performance.now() - t1) / 1000;
  await consumer.close();
  emit({
    metric: 'throughput',
    transport: label,
    jobs: JOBS,
    concurrency: 8,
    enqueue_jobs_per_s: Math.round(JOBS / enqueueS),
    consume_jobs_per_s: Math.round(JOBS / drainS),
  });
}

async function main(): Promise<void> {
  benchValidation();
  const memory = new InProcessTransport();
  await benchRoundtrip('in-process', memory, 'rollout.group', (i) => rolloutJob(i, 'run-mem'), ROUNDTRIPS);
  await benchRoundtrip('in-process', memory, 'reward.group', (i) => rewardJob(i, 'run-mem'), Math.min(ROUNDTRIPS, 50));
  await benchThroughput('in-process', memory, 'run-mem-t');
  await memory.close();

  const prefix = `fathom-bench-${randomUUID().slice(0, 8)}`;
  const bull = new BullMqTransport({ redisUrl: args.redis, prefix });
  try {
    await benchRoundtrip('bullmq', bull, 'rollout.group', (i) => rolloutJob(i, 'run-bull'), ROUNDTRIPS);
    await benchRoundtrip('bullmq', bull, 'reward.group', (i) => rewardJob(i, 'run-bull'), Math.min(ROUNDTRIPS, 50));
    await benchThroughput('bullmq', bull, 'run-bull-t');
  } finally {
    await bull.close();
    await deleteQueuePrefix(prefix, args.redis);
  }
}

await main();
