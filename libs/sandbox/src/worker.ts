/**
 * Entry of one sandbox worker process (forked by SandboxPool). Hosts the isolates of many episodes, keeps a
 * few warm, and talks to the supervisor over IPC. If V8 aborts this process on an out-of-memory, only the
 * episodes hosted here are lost; the supervisor restarts the worker.
 *
 * argv: [warmIsolates, warmMemoryMb, nice]
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { DOC_CACHE_CAPACITY, DocCache } from './doc-cache';
import { IsolateEpisode, WarmIsolate } from './isolate-episode';
import { endedResult, type FromWorker, type ToWorker } from './protocol';
import type { LlmRequest, LlmResponse } from './types';

const warmTarget = Number(process.argv[2] ?? 0);
const warmMemoryMb = Number(process.argv[3] ?? 128);
const nice = Number(process.argv[4] ?? 0);
const warm: WarmIsolate[] = [];
/**
 * Isolates V8 lost to an out-of-memory (see `WarmIsolate.create`), kept until this process ends so that nothing
 * releases their handles: their threads never return. The supervisor drains this worker after the first.
 */
const lost: WarmIsolate[] = [];
const keepLost = (isolate: WarmIsolate) => void lost.push(isolate);
const episodes = new Map<string, IsolateEpisode>();
const docs = new DocCache(DOC_CACHE_CAPACITY);
const llmWaiters = new Map<number, { resolve: (r: LlmResponse) => void; reject: (e: Error) => void }>();
let nextCallId = 1;
let refilling = false;

function send(msg: FromWorker): void {
  process.send?.(msg);
}

/** Tops the warm pool up one isolate per macrotask, so refilling never delays a waiting step for long. */
function refill(): void {
  if (refilling) return;
  if (warm.length >= warmTarget) {
    send({ type: 'warm', warm: warm.length });
    return;
  }
  refilling = true;
  setImmediate(() => {
    refilling = false;
    try {
      warm.push(WarmIsolate.create(warmMemoryMb, keepLost));
    } catch {
      // Out of memory for a new isolate right now: stay short; the next open retries (or creates cold).
      return;
    }
    refill();
  });
}

function forwardLlm(request: LlmRequest): Promise<LlmResponse> {
  const callId = nextCallId++;
  return new Promise((resolve, reject) => {
    llmWaiters.set(callId, { resolve, reject });
    send({ type: 'llm', callId, request });
  });
}

function open(msg: Extract<ToWorker, { type: 'open' }>): void {
  try {
    if (msg.ctxKey !== undefined && msg.ctx !== undefined) docs.set(msg.ctxKey, msg.ctx);
    const ctx = msg.ctx ?? (msg.ctxKey === undefined ? undefined : docs.get(msg.ctxKey));
    if (ctx === undefined) throw new Error(`document "${msg.ctxKey}" is not cached in this worker`);
    const isolate =
      msg.limits.memoryMb === warmMemoryMb && warm.length > 0
        ? warm.shift()!
        : WarmIsolate.create(msg.limits.memoryMb, keepLost);
    episodes.set(
      msg.episodeId,
      new IsolateEpisode(msg.episodeId, msg.depth, msg.limits, isolate, ctx, msg.question, forwardLlm),
    );
    send({ type: 'opened', rid: msg.rid, warm: warm.length });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    send({ type: 'open_failed', rid: msg.rid, message, warm: warm.length });
  }
  refill();
}

process.on('message', (msg: ToWorker) => {
  switch (msg.type) {
    case 'open':
      open(msg);
      return;
    case 'run': {
      const episode = episodes.get(msg.episodeId);
      if (!episode) {
        const error = { code: 'closed' as const, message: `episode ${msg.episodeId} is not open in this worker` };
        send({ type: 'step', rid: msg.rid, result: endedResult(error) });
        return;
      }
      void episode.run(msg.code, msg.wallMs).then((result) => {
        if (!result.alive) episodes.delete(msg.episodeId);
        send({ type: 'step', rid: msg.rid, result });
      });
      return;
    }
    case 'close':
      episodes.get(msg.episodeId)?.close();
      episodes.delete(msg.episodeId);
      send({ type: 'closed', rid: msg.rid });
      return;
    case 'llm_reply': {
      const waiter = llmWaiters.get(msg.callId);
      if (!waiter) return;
      llmWaiters.delete(msg.callId);
      if (msg.ok) waiter.resolve(msg.response);
      else waiter.reject(new Error(msg.message));
      return;
    }
  }
});

/**
 * Lowers the scheduling priority of every thread of this process. Linux applies a nice value to one thread, and a
 * new thread inherits its creator's: so every thread that exists now (V8's platform workers among them) is set, before
 * any isolate starts the threads that run guest code. Elsewhere `setPriority(0)` sets the whole process.
 */
function lowerPriority(value: number): void {
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    setPriority(0, value);
    return;
  }
  for (const tid of threads) {
    try {
      setPriority(Number(tid), value);
    } catch (error) {
      // A thread that ended since the listing has nothing left to set.
      if ((error as { info?: { code?: string } }).info?.code !== 'ESRCH') throw error;
    }
  }
}

// An orphaned worker (supervisor gone) must not linger.
process.on('disconnect', () => process.exit(0));

if (nice !== 0) lowerPriority(nice);
for (let i = 0; i < warmTarget; i++) warm.push(WarmIsolate.create(warmMemoryMb, keepLost));
send({ type: 'ready', warm: warm.length });
