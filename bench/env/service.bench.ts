/**
 * env-service benchmark: step latency (p50/p99, steps/s) of a regex search over WebSocket and gRPC on 16K- and
 * 200K-token contexts, reset latency with the warm pool, and throughput at 64 concurrent sessions.
 * Runs the real service in-process on free ports (sandbox worker processes included); llm() is not called, the
 * scripted inference server only satisfies the required INFERENCE_ADDRESS.
 *
 *   node --no-node-snapshot --import tsx bench/env/service.bench.ts [--steps 300] [--sessions 64] [--workers 2]
 *
 * Prints one JSON object per measurement.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Task } from '@fathom/contracts';
import { loadConfig, ScriptedInferenceServer, startEnvService } from '@fathom/env-service';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

/** A reply as the benchmark reads it (only a few fields are checked). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const { values: args } = parseArgs({
  options: {
    steps: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '30' },
    resets: { type: 'string', default: '100' },
    sessions: { type: 'string', default: '64' },
    'steps-per-session': { type: 'string', default: '20' },
    workers: { type: 'string', default: '2' },
  },
});
const STEPS = Number(args.steps);
const WARMUP = Number(args.warmup);
const RESETS = Number(args.resets);
const SESSIONS = Number(args.sessions);
const STEPS_PER_SESSION = Number(args['steps-per-session']);
const WORKERS = Number(args.workers);
const CONTEXT_SIZES = [16_000, 200_000];

const env = { node: process.version, cpus: cpus().length, sandbox_workers: WORKERS };
const emit = (record: Record<string, unknown>) =>
  console.log(JSON.stringify({ bench: 'env-service', ...record, ...env }));

function summary(samplesMs: number[]) {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    n: sorted.length,
    p50_ms: round(q(0.5)),
    p99_ms: round(q(0.99)),
    mean_ms: round(mean),
    steps_per_s: Math.round(1000 / mean),
  };
}

/** The search a policy would run first: each mention of the question's subject with the text that follows it. */
function searchProgram(task: Task): string {
  const subject = /^What colou?r is the (.+)\?$/.exec(task.question)?.[1] ?? 'the';
  return `const hits = ctx.match(/\\b${subject}\\b[^.]{0,80}/gi) ?? []; print(hits.length);`;
}

class Ws {
  private waiter: ((m: Json) => void) | null = null;
  constructor(readonly socket: WebSocket) {
    socket.on('message', (d) => this.waiter?.(JSON.parse(String(d))));
  }
  static async open(url: string): Promise<Ws> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    return new Ws(socket);
  }
  request(message: unknown): Promise<Json> {
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.socket.send(JSON.stringify(message));
    });
  }
}

function grpcClient(address: string) {
  const definition = protoLoader.loadSync(join(import.meta.dirname, '../../proto/env.proto'), {
    keepCase: true,
    longs: Number,
    defaults: false,
    oneofs: true,
  });
  const Env = (grpc.loadPackageDefinition(definition) as Json).fathom.env.v1.Env;
  const client = new Env(address, grpc.credentials.createInsecure());
  const call = (method: string, request: unknown) =>
    new Promise<Json>((resolve, reject) =>
      client[method](request, (e: unknown, r: unknown) => (e ? reject(e) : resolve(r))),
    );
  return { call, close: () => grpc.Client.prototype.close.call(client) };
}

async function main() {
  const dir = await mkdtemp(join(tmpdir(), 'fathom-env-bench-'));
  const tasks = new Map<number, Task>();
  for (const tokens of CONTEXT_SIZES) {
    const [task] = generateTasks({
      split: 'eval',
      n: 1,
      seed: tokens,
      minTokens: tokens,
      maxTokens: tokens,
      mix: { niah: 1 },
    });
    tasks.set(tokens, task);
  }
  await writeTasksJsonl(join(dir, 'bench.jsonl'), tasks.values());
  const inference = new ScriptedInferenceServer(() => '');
  const service = await startEnvService(
    loadConfig({
      HOST: '127.0.0.1',
      HTTP_PORT: '0',
      GRPC_PORT: '0',
      INFERENCE_ADDRESS: await inference.start(),
      DATASET_PATH: dir,
      LOG_LEVEL: 'warn',
      SANDBOX_WORKERS: String(WORKERS),
      MAX_CONCURRENT_ENVS: String(SESSIONS + 8),
      MAX_STEPS: String(STEPS + WARMUP + 10),
      EPISODE_CPU_MS: String(600_000),
    }),
  );
  const wsUrl = `ws://127.0.0.1:${service.httpPort}/ws`;
  const rpc = grpcClient(`127.0.0.1:${service.grpcPort}`);

  try {
    for (const task of tasks.values()) {
      const code = searchProgram(task);

      const ws = await Ws.open(wsUrl);
      await ws.request({ type: 'reset', data: { split: 'eval', task_id: task.id } });
      const wsSamples: number[] = [];
      const wsSandbox: number[] = [];
      for (let i = 0; i < WARMUP + STEPS; i++) {
        const t = performance.now();
        const reply = await ws.request({ type: 'step', data: { action: { code } } });
        if (reply.type !== 'observation' || reply.data.observation.error)
          throw new Error(`ws step failed: ${JSON.stringify(reply)}`);
        if (i >= WARMUP) {
          wsSamples.push(performance.now() - t);
          wsSandbox.push(reply.data.observation.wall_ms);
        }
      }
      ws.socket.close();
      emit({
        metric: 'step_latency',
        transport: 'ws',
        context_tokens: task.context_tokens,
        program: 'regex_search',
        ...summary(wsSamples),
        sandbox_wall_p50_ms: summary(wsSandbox).p50_ms,
      });

      const reset = await rpc.call('Reset', { split: 'eval', task_id: task.id });
      const id = reset.observation.episode_id;
      const grpcSamples: number[] = [];
      const grpcSandbox: number[] = [];
      for (let i = 0; i < WARMUP + STEPS; i++) {
        const t = performance.now();
        const reply = await rpc.call('Step', { episode_id: id, code });
        if (reply.observation.error) throw new Error(`grpc step failed: ${JSON.stringify(reply.observation.error)}`);
        if (i >= WARMUP) {
          grpcSamples.push(performance.now() - t);
          grpcSandbox.push(reply.observation.wall_ms);
        }
      }
      await rpc.call('Close', { episode_id: id });
      emit({
        metric: 'step_latency',
        transport: 'grpc',
        context_tokens: task.context_tokens,
        program: 'regex_search',
        ...summary(grpcSamples),
        sandbox_wall_p50_ms: summary(grpcSandbox).p50_ms,
      });

      const resetSamples: number[] = [];
      for (let i = 0; i < WARMUP + RESETS; i++) {
        const t = performance.now();
        const r = await rpc.call('Reset', { split: 'eval', task_id: task.id });
        if (i >= WARMUP) resetSamples.push(performance.now() - t);
        await rpc.call('Close', { episode_id: r.observation.episode_id });
      }
      const { steps_per_s: _rate, ...resetStats } = summary(resetSamples);
      emit({ metric: 'reset_latency', transport: 'grpc', context_tokens: task.context_tokens, ...resetStats });

      const sockets = await Promise.all(Array.from({ length: SESSIONS }, () => Ws.open(wsUrl)));
      await Promise.all(sockets.map((s) => s.request({ type: 'reset', data: { split: 'eval', task_id: task.id } })));
      const started = performance.now();
      await Promise.all(
        sockets.map(async (s) => {
          for (let i = 0; i < STEPS_PER_SESSION; i++) await s.request({ type: 'step', data: { action: { code } } });
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      for (const s of sockets) s.socket.close();
      emit({
        metric: 'throughput',
        transport: 'ws',
        context_tokens: task.context_tokens,
        sessions: SESSIONS,
        steps: SESSIONS * STEPS_PER_SESSION,
        steps_per_s: Math.round((SESSIONS * STEPS_PER_SESSION) / seconds),
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    rpc.close();
    await service.close();
    await inference.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
