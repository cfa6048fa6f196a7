/**
 * env-service benchmark: step latency (p50/p99, steps/s) of a regex search over WebSocket and gRPC on 16K- and
 * 200K-token contexts, next to the same step on a SandboxPool driven in-process (no transport) and the program run
 * as a plain function in this process (no sandbox), interleaved so that each layer's cost is a paired difference;
 * the seed project's design beside them (one Python subprocess per REPL step, `python_baseline`); a quiet WebSocket
 * session's latency beside misbehaving neighbours; reset latency with the warm pool; throughput at 64 concurrent
 * sessions.
 * Runs the real service in-process on free ports (sandbox worker processes included); llm() is not called, the
 * scripted inference server only satisfies the required INFERENCE_ADDRESS.
 *
 *   node --no-node-snapshot --import tsx bench/env/service.bench.ts [--steps 300] [--sessions 64] [--workers 2]
 *     [--neighbour-s 20] [--low-priority-workers 1] [--worker-killer] [--python-steps 30]
 *
 * Prints one JSON object per measurement.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { escapeRegExp, type Task } from '@fathom/contracts';
import { loadConfig, ScriptedInferenceServer, startEnvService } from '@fathom/env-service';
import { SandboxPool } from '@fathom/sandbox';
import { generateTasks, writeTasksJsonl } from '@fathom/tasks';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
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
    'neighbour-s': { type: 'string', default: '20' },
    'low-priority-workers': { type: 'string', default: '1' },
    'worker-killer': { type: 'boolean', default: false },
    'python-steps': { type: 'string', default: '30' },
  },
});
const STEPS = Number(args.steps);
const WARMUP = Number(args.warmup);
const RESETS = Number(args.resets);
const SESSIONS = Number(args.sessions);
const STEPS_PER_SESSION = Number(args['steps-per-session']);
const WORKERS = Number(args.workers);
const NEIGHBOUR_MS = Number(args['neighbour-s']) * 1000;
const LOW_PRIORITY_WORKERS = Number(args['low-priority-workers']);
const WORKER_KILLER = args['worker-killer'];
const PYTHON_STEPS = Number(args['python-steps']);
const CONTEXT_SIZES = [16_000, 200_000];

const env = {
  node: process.version,
  cpus: cpus().length,
  sandbox_workers: WORKERS,
  low_priority_workers: LOW_PRIORITY_WORKERS,
};
const emit = (record: Record<string, unknown>) =>
  console.log(JSON.stringify({ bench: 'env-service', ...record, ...env, loadavg_1m: loadavg()[0] }));

const round = (x: number) => Math.round(x * 1000) / 1000;

function quantile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function summary(samplesMs: number[]) {
  const mean = samplesMs.reduce((s, x) => s + x, 0) / samplesMs.length;
  return {
    n: samplesMs.length,
    p50_ms: round(quantile(samplesMs, 0.5)),
    p99_ms: round(quantile(samplesMs, 0.99)),
    mean_ms: round(mean),
    steps_per_s: Math.round(1000 / mean),
  };
}

/**
 * The search a policy would run first: each mention of the task's key (from its structured ground truth) with the
 * text that follows it. It once took the key from "What colour is the X?", which no question reads like since the
 * phrasings of issue 14: the search then matched every "the" (about 2.4 ms a step at 200K tokens instead of 0.4).
 */
function searchProgram(task: Task): string {
  return `const hits = ctx.match(/${searchPattern(task)}/gi) ?? []; print(hits.length);`;
}

/** The search's regular expression (case-insensitive, global): the task's key as a word and what follows it. */
function searchPattern(task: Task): string {
  return `\\b${escapeRegExp(searchKey(task))}\\b[^.]{0,80}`;
}

function searchKey(task: Task): string {
  const key = task.meta?.key;
  if (key === undefined) throw new Error(`task ${task.id} has no key in its metadata`);
  return key;
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
  /** Starts an episode on the dataset task `taskId`. */
  reset(taskId: string): Promise<Json> {
    return this.request({ type: 'reset', data: { split: 'eval', task_id: taskId } });
  }
  step(code: string): Promise<Json> {
    return this.request({ type: 'step', data: { action: { code } } });
  }
}

/** The error code of a WebSocket reply: the observation's sandbox error, or the service's error reason; else undefined. */
function errorCodeOf(reply: Json): string | undefined {
  return reply.type === 'observation' ? reply.data.observation.error?.code : reply.data?.reason;
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
  /** A Session stream: `request` writes one request and resolves with the next reply (they come in order). */
  const session = () => {
    const stream = client.Session();
    const waiters: ((reply: Json) => void)[] = [];
    stream.on('data', (reply: Json) => waiters.shift()!(reply));
    stream.on('error', () => undefined);
    const request = (message: unknown) =>
      new Promise<Json>((resolve) => {
        waiters.push(resolve);
        stream.write(message);
      });
    return { request, end: () => stream.end() };
  };
  return { call, session, close: () => grpc.Client.prototype.close.call(client) };
}

type Rpc = ReturnType<typeof grpcClient>;
type Transport = 'ws' | 'grpc' | 'grpc_session' | 'in_process';
const TRANSPORTS: readonly Transport[] = ['ws', 'grpc', 'grpc_session', 'in_process'];

/**
 * The guest program run as a plain function in this process (no isolate, no worker, no transport), printing into a
 * local: what the step costs before any sandboxing, the floor under every `step_latency` line.
 */
function guestOnHost(code: string): (ctx: string) => void {
  let printed = '';
  const program = new Function('ctx', 'print', code) as (ctx: string, print: (...values: unknown[]) => void) => void;
  return (ctx) => {
    printed = '';
    program(ctx, (...values) => {
      printed = values.join(' ');
    });
    if (printed === '') throw new Error('the search printed nothing on the host');
  };
}

/**
 * The same step over WebSocket, over gRPC (a unary Step per step, and a Session stream) and on a SandboxPool driven
 * in-process, one after another in a rotating order, so that load drift on a shared machine hits all alike. Each transport's `overhead_*` is the paired
 * difference to the in-process step of the same round. Each round also runs the program on the host (`guest_floor`);
 * the in-process line's `over_floor_*` is the paired difference to it: what the sandbox adds.
 */
async function stepLatency(task: Task, code: string, wsUrl: string, rpc: Rpc, pool: SandboxPool): Promise<number> {
  const ws = await Ws.open(wsUrl);
  await ws.reset(task.id);
  const reset = await rpc.call('Reset', { split: 'eval', task_id: task.id });
  const grpcId = reset.observation.episode_id;
  const session = rpc.session();
  await session.request({ reset: { split: 'eval', task_id: task.id } });
  const local = await pool.openEpisode({ ctx: task.context, question: task.question });
  const run: Record<Transport, () => Promise<number>> = {
    ws: async () => {
      const reply = await ws.step(code);
      if (reply.type !== 'observation' || reply.data.observation.error)
        throw new Error(`ws step failed: ${JSON.stringify(reply)}`);
      return reply.data.observation.wall_ms;
    },
    grpc: async () => {
      const reply = await rpc.call('Step', { episode_id: grpcId, code });
      if (reply.observation.error) throw new Error(`grpc step failed: ${JSON.stringify(reply.observation.error)}`);
      return reply.observation.wall_ms;
    },
    grpc_session: async () => {
      const reply = await session.request({ step: { code } });
      if (!reply.observation || reply.observation.observation.error)
        throw new Error(`grpc session step failed: ${JSON.stringify(reply)}`);
      return reply.observation.observation.wall_ms;
    },
    in_process: async () => {
      const result = await local.run(code);
      if (result.error) throw new Error(`in-process step failed: ${JSON.stringify(result.error)}`);
      return result.wallMs;
    },
  };
  const samples = Object.fromEntries(TRANSPORTS.map((t) => [t, [] as number[]])) as Record<Transport, number[]>;
  const sandbox = Object.fromEntries(TRANSPORTS.map((t) => [t, [] as number[]])) as Record<Transport, number[]>;
  const onHost = guestOnHost(code);
  const floor: number[] = [];
  for (let i = 0; i < WARMUP + STEPS; i++) {
    const started = performance.now();
    onHost(task.context);
    if (i >= WARMUP) floor.push(performance.now() - started);
    for (let k = 0; k < TRANSPORTS.length; k++) {
      const transport = TRANSPORTS[(i + k) % TRANSPORTS.length];
      const t = performance.now();
      const wallMs = await run[transport]();
      if (i < WARMUP) continue;
      samples[transport].push(performance.now() - t);
      sandbox[transport].push(wallMs);
    }
  }
  ws.socket.close();
  await rpc.call('Close', { episode_id: grpcId });
  session.end();
  await local.close();
  emit({
    metric: 'guest_floor',
    transport: 'none',
    context_tokens: task.context_tokens,
    program: 'regex_search',
    ...summary(floor),
  });
  const overFloor = samples.in_process.map((ms, i) => ms - floor[i]);
  for (const transport of TRANSPORTS) {
    const overhead = samples[transport].map((ms, i) => ms - samples.in_process[i]);
    emit({
      metric: 'step_latency',
      transport,
      context_tokens: task.context_tokens,
      program: 'regex_search',
      ...summary(samples[transport]),
      sandbox_wall_p50_ms: round(quantile(sandbox[transport], 0.5)),
      ...(transport === 'in_process'
        ? { over_floor_p50_ms: round(quantile(overFloor, 0.5)), over_floor_p99_ms: round(quantile(overFloor, 0.99)) }
        : { overhead_p50_ms: round(quantile(overhead, 0.5)), overhead_p99_ms: round(quantile(overhead, 0.99)) }),
    });
  }
  return quantile(samples.ws, 0.5);
}

/** The same search in Python, as the seed's REPL ran it: the document read from a file, then the code. */
const PYTHON_SEARCH = `import re, sys
ctx = open(sys.argv[1], encoding="utf-8").read()
print(len(re.findall(r"\\b" + re.escape(sys.argv[2]) + r"\\b[^.]{0,80}", ctx, re.I)))`;

/**
 * The design FATHOM replaced (ORIGIN.md): one Python subprocess per REPL step. Each step starts the interpreter, which
 * reads the document and runs the same search; `ws_speedup_p50` is its p50 over the WebSocket step's p50 of this run.
 * The interpreter is `python3`'s `sys.executable`, resolved once: a version manager's shim (pyenv's is a shell script)
 * would add its own start-up to every step.
 */
async function pythonBaseline(task: Task, dir: string, wsP50Ms: number): Promise<void> {
  const base = { metric: 'python_baseline', transport: 'python_subprocess', context_tokens: task.context_tokens };
  if (PYTHON_STEPS <= 0) return;
  const ctxFile = join(dir, `ctx-${task.context_tokens}.txt`);
  await writeFile(ctxFile, task.context);
  const expected = String((task.context.match(new RegExp(searchPattern(task), 'gi')) ?? []).length);
  const run = promisify(execFile);
  let python: string;
  try {
    python = (await run('python3', ['-c', 'import sys; print(sys.executable)'])).stdout.trim();
  } catch (err) {
    emit({ ...base, skipped: `python3 did not run: ${(err as Error).message.split('\n')[0]}` });
    return;
  }
  const samples: number[] = [];
  for (let i = 0; i < PYTHON_STEPS + 2; i++) {
    const started = performance.now();
    const { stdout } = await run(python, ['-c', PYTHON_SEARCH, ctxFile, searchKey(task)]);
    if (stdout.trim() !== expected) throw new Error(`python search printed ${stdout.trim()}, the guest ${expected}`);
    if (i >= 2) samples.push(performance.now() - started);
  }
  const stats = summary(samples);
  emit({ ...base, program: 'regex_search', python, ...stats, ws_speedup_p50: round(stats.p50_ms / wsP50Ms) });
}

/** Guest programs of misbehaving neighbours: each runs until the sandbox stops it, and then resets and runs again. */
const NEIGHBOURS = {
  endless_loop: 'while (true) {}',
  allocation_bomb: 'const a = []; while (true) a.push(new Array(1e6).fill(1));',
  // With --worker-killer: a Map grown until V8 gives up on its isolate (when its CPU limit does not stop it first),
  // which drains its sandbox worker, and kills it at the third (libs/sandbox/README.md, "Lost isolates").
  ...(WORKER_KILLER && { worker_killer: 'const m = new Map(); let i = 0; while (true) m.set(i++, "v" + i);' }),
};

/**
 * A quiet WebSocket session's step latency alone, then for NEIGHBOUR_MS beside one session per NEIGHBOURS program
 * that runs into its CPU or memory limit again and again (on one connection, so that the service runs its episodes on
 * a low-priority worker after the first breach); `p99_ratio` is beside / alone. A quiet step that fails is
 * counted by its error code in `quiet_errors` (and the quiet session resets), so a neighbour that breaks containment
 * shows in the record instead of stopping the bench.
 */
async function besideNeighbours(task: Task, code: string, wsUrl: string): Promise<void> {
  const quiet = await Ws.open(wsUrl);
  const reset = () => quiet.reset(task.id);
  const quietErrors: Record<string, number> = {};
  const timed = async (until: () => boolean): Promise<number[]> => {
    const samples: number[] = [];
    await reset();
    for (let i = 0; i < WARMUP; i++) await quiet.step(code);
    while (until()) {
      const t = performance.now();
      const reply = await quiet.step(code);
      samples.push(performance.now() - t);
      const error = errorCodeOf(reply);
      if (error !== undefined) quietErrors[error] = (quietErrors[error] ?? 0) + 1;
      if (error !== undefined || reply.data.done) await reset();
    }
    return samples;
  };
  let left = STEPS;
  const alone = await timed(() => left-- > 0);

  let stop = false;
  const stopped: Record<string, number> = {};
  const neighbours = Object.entries(NEIGHBOURS).map(async ([name, program]) => {
    const socket = await Ws.open(wsUrl);
    while (!stop) {
      await socket.reset(task.id);
      const error = errorCodeOf(await socket.step(program));
      const key = `${name}:${error ?? 'none'}`;
      stopped[key] = (stopped[key] ?? 0) + 1;
    }
    socket.socket.close();
  });
  const until = performance.now() + NEIGHBOUR_MS;
  let beside: number[];
  try {
    beside = await timed(() => performance.now() < until);
  } finally {
    stop = true;
    await Promise.all(neighbours);
    quiet.socket.close();
  }
  const aloneStats = summary(alone);
  const besideStats = summary(beside);
  emit({
    metric: 'beside_neighbours',
    transport: 'ws',
    context_tokens: task.context_tokens,
    program: 'regex_search',
    neighbour_steps: stopped,
    quiet_errors: quietErrors,
    alone: aloneStats,
    beside: besideStats,
    p50_ratio: round(besideStats.p50_ms / aloneStats.p50_ms),
    p99_ratio: round(besideStats.p99_ms / aloneStats.p99_ms),
  });
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
      SANDBOX_LOW_PRIORITY_WORKERS: String(LOW_PRIORITY_WORKERS),
      MAX_CONCURRENT_ENVS: String(SESSIONS + 8),
      MAX_STEPS: String(STEPS + WARMUP + 10),
      EPISODE_CPU_MS: String(600_000),
    }),
  );
  const wsUrl = `ws://127.0.0.1:${service.httpPort}/ws`;
  const rpc = grpcClient(`127.0.0.1:${service.grpcPort}`);
  const pool = await SandboxPool.start({
    workers: WORKERS,
    defaults: { maxSteps: STEPS + WARMUP + 10, episodeCpuMs: 600_000 },
  });

  try {
    for (const task of tasks.values()) {
      const code = searchProgram(task);
      const wsP50Ms = await stepLatency(task, code, wsUrl, rpc, pool);
      await pythonBaseline(task, dir, wsP50Ms);
      if (task.context_tokens > 100_000) await besideNeighbours(task, code, wsUrl);

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
      await Promise.all(sockets.map((s) => s.reset(task.id)));
      const started = performance.now();
      await Promise.all(
        sockets.map(async (s) => {
          for (let i = 0; i < STEPS_PER_SESSION; i++) await s.step(code);
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
    await pool.close();
    await service.close();
    await inference.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
