import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPoolError } from './errors';
import { SandboxPool, WorkerProcess } from './pool';
import { echoLlmDouble } from './test-helpers';
import type { LlmHandler, SandboxEpisode } from './types';

let pool: SandboxPool;

beforeAll(async () => {
  pool = await SandboxPool.start({
    workers: 2,
    warmIsolatesPerWorker: 2,
    defaults: { stepCpuMs: 500, maxOutputChars: 200 },
  });
});

afterAll(() => pool.close());

/**
 * The nice value of each thread of a process (field 19 of /proc/PID/task/TID/stat, counted after the name); a thread
 * that ends between the listing and the read is left out.
 */
function threadNices(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return [];
    }
    return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
  });
}

async function open(
  ctx = 'the mirror is teal; the lamp is red',
  options: Parameters<SandboxPool['openEpisode']>[0] = { ctx },
) {
  return pool.openEpisode({ ...options, ctx });
}

describe('REPL semantics', () => {
  it('binds ctx and persists state across steps, with notebook redeclaration', async () => {
    const episode = await open();
    expect(
      (await episode.run('const x = 1; let y = ctx.length; function f() { return x + 1 }; class C {}')).error,
    ).toBeNull();
    const second = await episode.run(
      'const x = 2; let y = 3; class C { v() { return 7 } }; print(x, y, f(), new C().v())',
    );
    expect(second).toMatchObject({ error: null, stdout: '2 3 3 7\n', variables: ['x', 'y', 'f', 'C'], alive: true });
    await episode.close();
  });

  it("shows each variable's value in a short form beside its name, without calling a getter", async () => {
    const episode = await open();
    const result = await episode.run(
      'const s = "a\\"b"; const n = 4.5; const hits = [1, 2, 3, 4, 5, 6, 7]; const o = {k: [1]}; function f() {}; ' +
        'const long = "x".repeat(300); let big = "y"; for (let i = 0; i < 21; i++) big += big; ' +
        'Object.defineProperty(globalThis, "g", { get() { throw new Error("called") }, enumerable: true })',
    );
    expect(result).toMatchObject({ error: null, variables: ['s', 'n', 'hits', 'o', 'f', 'long', 'big', 'g'] });
    expect(result.values).toEqual([
      '"a\\"b"',
      '4.5',
      'Array(7) [1,2,3,4,5]',
      '{"k":[1]}',
      '[Function f]',
      `"${'x'.repeat(199)}…`,
      '[string of 2097152 characters]',
      '[accessor]',
    ]);
    await episode.close();
  });

  it('binds the question as a read-only string that cells can read but never change', async () => {
    const episode = await open('the mirror is teal', { ctx: '', question: 'What colour is the mirror?' });
    const read = await episode.run('const o = question.match(/the (.+)\\?/)[1]; print(typeof question, o)');
    expect(read).toMatchObject({ error: null, stdout: 'string mirror\n', variables: ['o'] });
    // Sloppy-mode assignment and a top-level redeclaration are ignored; strict-mode assignment throws.
    expect((await episode.run('question = "x"; var question = "y"; print(question)')).stdout).toBe(
      'What colour is the mirror?\n',
    );
    const strict = await episode.run('"use strict"; question = "z"');
    expect(strict.error).toMatchObject({ code: 'runtime', message: expect.stringContaining('TypeError') });
    expect((await episode.run('print(question)')).stdout).toBe('What colour is the mirror?\n');
    await episode.close();
  });

  it('binds an empty question when none is given', async () => {
    const episode = await open();
    expect((await episode.run('print(JSON.stringify(question))')).stdout).toBe('""\n');
    await episode.close();
  });

  it('prints strings as is, values as JSON, and console.log too', async () => {
    const episode = await open();
    const result = await episode.run(
      'print("a", 1, [1, "b"], { k: null }, undefined); console.log(ctx.match(/(\\w+) is teal/)[1])',
    );
    expect(result.stdout).toBe('a 1 [1,"b"] {"k":null} undefined\nmirror\n');
    await episode.close();
  });

  it('includes output printed by promise callbacks of the same step', async () => {
    const episode = await open();
    expect((await episode.run('(async () => { await null; print("later") })(); print("now")')).stdout).toBe(
      'now\nlater\n',
    );
    // A global that a callback defines at the end of a long chain of microtasks is listed with its step too.
    const late = await episode.run('(async () => { for (let i = 0; i < 100; i++) await null; globalThis.late = 1 })()');
    expect(late).toMatchObject({ error: null, variables: ['late'] });
    await episode.close();
  });

  it('reports an unhandled rejection as a runtime error and keeps the REPL', async () => {
    const episode = await open();
    const rejected = await episode.run('var kept = 1; print("lost"); Promise.reject(new Error("boom"))');
    expect(rejected).toMatchObject({ error: { code: 'runtime', message: 'Error: boom' }, alive: true });
    expect(await episode.run('print(kept)')).toMatchObject({ error: null, stdout: '1\n', variables: ['kept'] });
    await episode.close();
  });

  it('records the first answer() of a cell as text, keeps it through a later throw, and resets it per cell', async () => {
    const episode = await open();
    expect(await episode.run('print("looking")')).toMatchObject({ answer: null, stdout: 'looking\n' });
    const answered = await episode.run('answer(ctx.match(/mirror is (\\w+)/)[1]); answer("second"); print("after")');
    expect(answered).toMatchObject({ answer: 'teal', stdout: 'after\n', error: null, alive: true });
    expect((await episode.run('answer(42); throw new Error("late")')).answer).toBe('42');
    expect((await episode.run('answer({ n: 3 })')).answer).toBe('{"n":3}');
    const next = await episode.run('print(typeof answer)');
    expect(next).toMatchObject({ answer: null, stdout: 'function\n', variables: [] });
    await episode.close();
  });

  it('reports syntax and runtime errors and keeps the episode', async () => {
    const episode = await open();
    await episode.run('const kept = 1');
    const syntax = await episode.run('const = 1');
    expect(syntax).toMatchObject({ error: { code: 'syntax' }, variables: ['kept'] });
    expect(syntax.error?.message).toMatch(/^SyntaxError: .*\(1:6\)/);
    const runtime = await episode.run('print("before"); null.x');
    expect(runtime).toMatchObject({ stdout: 'before\n', alive: true });
    expect(runtime.error).toEqual({
      code: 'runtime',
      message: "TypeError: Cannot read properties of null (reading 'x')",
    });
    expect((await episode.run('throw "plain"')).error?.message).toBe('Uncaught plain');
    expect((await episode.run('print("ok")')).stdout).toBe('ok\n');
    await episode.close();
  });

  it('copies a 200K-token context in once and searches it', async () => {
    const ctx = 'lorem ipsum dolor sit amet '.repeat(30_000) + 'the secret code is 4417. ' + 'tail text '.repeat(100);
    const episode = await open(ctx);
    const result = await episode.run('print(ctx.length, ctx.match(/secret code is (\\d+)/)[1])');
    expect(result.stdout).toBe(`${ctx.length} 4417\n`);
    await episode.close();
  });
});

describe('ctxKey', () => {
  it('reuses a cached document and never serves a stale one for a reused key', async () => {
    const hitsBefore = pool.stats().totals.ctxCacheHits;
    for (const ctx of ['first document', 'first document', 'second document', 'first document']) {
      const episode = await pool.openEpisode({ ctx, ctxKey: 'task-1' });
      expect((await episode.run('print(ctx)')).stdout).toBe(`${ctx}\n`);
      await episode.close();
    }
    // Only the second open repeats the document its worker last saw under the key (ties go to worker 0).
    expect(pool.stats().totals.ctxCacheHits - hitsBefore).toBe(1);
  });
});

describe('llm()', () => {
  it('is synchronous in the guest and reaches the handler with depth and chunk', async () => {
    const requests: unknown[] = [];
    const llm: LlmHandler = async (req) => {
      requests.push(req);
      return echoLlmDouble(req);
    };
    const episode = await open('abcdef', { ctx: '', llm });
    const result = await episode.run('const a = llm("what?", ctx.slice(0, 3)); print(a.toUpperCase())');
    expect(result.stdout).toBe('ECHO(1):WHAT?:ABC\n');
    expect(requests).toEqual([{ prompt: 'what?', chunk: 'abc', depth: 1, episodeId: episode.id, tokenBudget: 32_000 }]);
    expect(result.llmCalls).toEqual([
      { depth: 1, promptChars: 5, chunkChars: 3, promptTokens: 10, completionTokens: 5, wallMs: expect.any(Number) },
    ]);
    await episode.close();
  });

  it('throws an LlmError the guest can catch when the handler fails or misbehaves', async () => {
    const failing = await open('x', { ctx: '', llm: async () => Promise.reject(new Error('inference down')) });
    const caught = await failing.run('try { llm("q") } catch (e) { print(e.name, e.message) }');
    expect(caught).toMatchObject({ error: null, stdout: 'LlmError inference down\n' });
    expect(caught.llmCalls[0].error).toBe('inference down');
    const uncaught = await failing.run('llm("q")');
    expect(uncaught.error).toEqual({ code: 'runtime', message: 'LlmError: inference down' });
    await failing.close();

    const malformed = await open('x', { ctx: '', llm: async () => ({ text: 42 }) as never });
    expect((await malformed.run('llm("q")')).error?.message).toBe(
      'LlmError: llm() handler returned a malformed response',
    );
    await malformed.close();

    const none = await open('x');
    expect((await none.run('llm("q")')).error?.message).toBe('LlmError: llm() is not available in this environment');
    await none.close();
  });

  it('times out a hung handler', async () => {
    const episode = await open('x', {
      ctx: '',
      limits: { subcallTimeoutMs: 50 },
      llm: () => new Promise(() => undefined),
    });
    expect((await episode.run('llm("q")')).error?.message).toBe('LlmError: llm() sub-call timed out after 50 ms');
    await episode.close();
  });

  it('caps sub-call tokens per episode', async () => {
    const episode = await open('x', { ctx: '', limits: { maxSubcallTokens: 20 }, llm: echoLlmDouble });
    const result = await episode.run('llm("a"); llm("b"); llm("c")');
    expect(result.error).toEqual({
      code: 'llm_limit',
      message: 'LlmError: llm() token budget exhausted (20 tokens per episode)',
    });
    expect(result.llmCalls.map((c) => c.error ?? 'ok')).toEqual(['ok', 'ok', expect.stringMatching(/token budget/)]);
    await episode.close();
  });

  it('recurses through child episodes until the depth cap', async () => {
    const children: SandboxEpisode[] = [];
    const recurse: LlmHandler = async (req) => {
      const child = await pool.openEpisode({
        ctx: req.chunk ?? '',
        depth: req.depth,
        limits: { maxDepth: 2 },
        llm: recurse,
      });
      children.push(child);
      const result = await child.run('print(ctx.length, llm("deeper", ctx.slice(1)))');
      await child.close();
      return {
        text: result.error ? `child error: ${result.error.message}` : result.stdout.trim(),
        promptTokens: 1,
        completionTokens: 1,
      };
    };
    const root = await open('abcd', { ctx: '', limits: { maxDepth: 2 }, llm: recurse });
    const result = await root.run('print(llm("top", ctx))');
    expect(result.stdout).toBe('4 child error: LlmError: llm() recursion depth limit reached (max depth 2)\n');
    expect(children.map((c) => c.depth)).toEqual([1, 2]);
    await root.close();
  });
});

describe('size caps', () => {
  it('refuses an answer() over maxAnswerChars with a catchable RangeError that sets no answer', async () => {
    const episode = await open('x', { ctx: '', limits: { maxAnswerChars: 20 } });
    const caught = await episode.run('try { answer("y".repeat(21)) } catch (e) { print(e.name); answer("short") }');
    expect(caught).toMatchObject({ error: null, stdout: 'RangeError\n', answer: 'short' });
    const uncaught = await episode.run('answer({ list: "z".repeat(30) })');
    expect(uncaught).toMatchObject({
      error: {
        code: 'runtime',
        message: 'RangeError: answer() value of 41 characters exceeds the limit of 20 characters (maxAnswerChars)',
      },
      answer: null,
      alive: true,
    });
    expect((await episode.run('answer("a".repeat(20))')).answer).toBe('a'.repeat(20));
    await episode.close();
  });

  it('refuses an llm() prompt or chunk over its cap before the handler sees it, and records the refusal', async () => {
    const requests: unknown[] = [];
    const llm: LlmHandler = async (req) => {
      requests.push(req);
      return echoLlmDouble(req);
    };
    const limits = { maxLlmPromptChars: 10, maxLlmChunkChars: 100 };
    const episode = await open('x', { ctx: '', limits, llm });
    const prompt = await episode.run('try { llm("p".repeat(11)) } catch (e) { print(e.name, e.message) }');
    expect(prompt.stdout).toBe(
      'LlmError llm() prompt of 11 characters exceeds the limit of 10 characters (maxLlmPromptChars)\n',
    );
    expect(prompt.llmCalls).toEqual([
      expect.objectContaining({ promptChars: 11, chunkChars: 0, error: expect.stringMatching(/maxLlmPromptChars/) }),
    ]);
    const chunk = await episode.run('llm("q", "c".repeat(101))');
    expect(chunk.error).toEqual({
      code: 'llm_limit',
      message: 'LlmError: llm() chunk of 101 characters exceeds the limit of 100 characters (maxLlmChunkChars)',
    });
    expect(requests).toEqual([]);
    expect((await episode.run('print(llm("p".repeat(10), "c".repeat(100)).length)')).stdout).toBe('119\n');
    expect(requests).toHaveLength(1);
    await episode.close();
  });

  it('refuses a 50 MB chunk without copying it out of the isolate', async () => {
    const requests: unknown[] = [];
    const episode = await open('x', {
      ctx: '',
      limits: { memoryMb: 256 },
      llm: async (req) => (requests.push(req), echoLlmDouble(req)),
    });
    const result = await episode.run('const big = "c".repeat(5e7) + "!"; llm("q", big)');
    expect(result.error?.message).toBe(
      'LlmError: llm() chunk of 50000001 characters exceeds the limit of 400000 characters (maxLlmChunkChars)',
    );
    expect(result.llmCalls).toEqual([expect.objectContaining({ chunkChars: 50_000_001, wallMs: 0 })]);
    expect(requests).toEqual([]);
    expect(result.alive).toBe(true);
    await episode.close();
  });
});

describe('episode limits', () => {
  it('ends the episode after maxSteps', async () => {
    const episode = await open('x', { ctx: '', limits: { maxSteps: 2 } });
    await episode.run('1');
    await episode.run('2');
    const third = await episode.run('3');
    expect(third.error).toEqual({ code: 'step_limit', message: expect.stringContaining('limit of 2 steps') });
    expect(episode.alive).toBe(false);
  });

  it('ends the episode when total CPU is spent', async () => {
    const episode = await open('x', { ctx: '', limits: { episodeCpuMs: 120, stepCpuMs: 100 } });
    // The first step spins 80 ms of wall time, under the 100 ms step limit; the second may use only what is left
    // of the episode's 120 ms, so together they spend the whole budget and no more than a watchdog tick over it.
    const first = await episode.run('const t0 = Date.now(); while (Date.now() - t0 < 80) {}');
    expect(first.error).toBeNull();
    const second = await episode.run('for (;;) {}');
    expect(second.error?.code).toBe('episode_cpu_limit');
    expect(first.cpuMs + second.cpuMs).toBeGreaterThanOrEqual(120);
    expect(second.cpuMs).toBeLessThan(120 - first.cpuMs + 100);
    expect((await episode.run('1')).error?.code).toBe('episode_cpu_limit');
  });

  it('returns closed for steps after close, including a step cut short by close', async () => {
    const episode = await open('x', { ctx: '', limits: { stepCpuMs: 10_000 } });
    const running = episode.run('while (true) {}');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await episode.close();
    expect((await running).error?.code).toBe('closed');
    expect((await episode.run('1')).error?.code).toBe('closed');
    await episode.close();
  });
});

describe('pool', () => {
  it('rejects misuse with SandboxPoolError', async () => {
    const episode = await open('x', { ctx: '', id: 'fixed-id' });
    await expect(open('y', { ctx: '', id: 'fixed-id' })).rejects.toThrow(SandboxPoolError);
    await expect(open('y', { ctx: '', limits: { memoryMb: 1 } })).rejects.toThrow(/memoryMb/);
    await expect(pool.openEpisode({ ctx: 5 as never })).rejects.toThrow(/ctx must be a string/);
    await episode.close();
  });

  it('keeps warm isolates ready and reports load', async () => {
    const episodes = await Promise.all([open(), open(), open()]);
    const during = pool.stats();
    expect(during.activeEpisodes).toBeGreaterThanOrEqual(3);
    expect(during.workers.map((w) => w.ready)).toEqual([true, true]);
    await Promise.all(episodes.map((e) => e.close()));
    await expect.poll(() => pool.stats().warm).toBe(4);
  });

  it('restarts a worker that dies and ends only its episodes', async () => {
    const crashPool = await SandboxPool.start({ workers: 2, warmIsolatesPerWorker: 1 });
    try {
      // Least-loaded placement with a tie picks the first worker, so a lands on worker 0 and b on worker 1.
      const a = await crashPool.openEpisode({ ctx: 'a', limits: { stepCpuMs: 30_000, stepWallMs: 30_000 } });
      const b = await crashPool.openEpisode({ ctx: 'b' });
      const [w0, w1] = crashPool.stats().workers;
      expect([w0.activeEpisodes, w1.activeEpisodes]).toEqual([1, 1]);
      const running = a.run('while (true) {}');
      await new Promise((resolve) => setTimeout(resolve, 50));
      process.kill(w0.pid!, 'SIGKILL');
      const crashed = await running;
      expect(crashed.error?.code).toBe('worker_crashed');
      expect(crashed.error?.message).toMatch(/killed by SIGKILL while a step of this episode ran/);
      // The step that was running may be what killed the process: it is marked, later ones are not.
      expect(crashed.brokeWorker).toBe(true);
      const after = await a.run('1');
      expect(after.error?.code).toBe('worker_crashed');
      expect(after.brokeWorker).toBeUndefined();
      expect((await b.run('print(ctx)')).stdout).toBe('b\n');
      await expect.poll(() => crashPool.stats().workers.every((w) => w.ready)).toBe(true);
      expect(crashPool.stats()).toMatchObject({ restarts: 1, totals: { crashedEpisodes: 1 } });
      const c = await crashPool.openEpisode({ ctx: 'c' });
      expect((await c.run('print(ctx)')).stdout).toBe('c\n');
    } finally {
      await crashPool.close();
    }
  });

  // Each grows a hash table past the isolate's heap in a way V8 cannot recover from (laverdet/isolated-vm#107, #527):
  // without `onCatastrophicError` it aborted the worker process, and every episode on it was lost.
  it.each([
    ['a Map', 'const m = new Map(); let i = 0; while (true) m.set(i++, "v" + i);'],
    ['an object given millions of keys', 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;'],
    ['a WeakMap', 'const m = new WeakMap(), keep = []; while (true) { const k = {}; keep.push(k); m.set(k, 1); }'],
  ])(
    '%s grown without bound ends only its own episode: one beside it on the same worker keeps its REPL',
    async (_, bomb) => {
      const pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1 });
      try {
        const firstPid = pool.stats().workers[0]!.pid;
        const bystander = await pool.openEpisode({ ctx: 'bystander' });
        expect((await bystander.run('const kept = 41;')).error).toBeNull();
        const limits = { memoryMb: 32, stepCpuMs: 30_000, stepWallMs: 30_000 };
        const bomber = await pool.openEpisode({ ctx: '', limits });
        const result = await bomber.run(bomb);
        expect(result).toMatchObject({ error: { code: 'memory_limit' }, alive: false, brokeWorker: true });
        expect(result.error?.message).toMatch(/memory limit of 32 MiB/);
        expect((await bystander.run('print(kept + 1, ctx)')).stdout).toBe('42 bystander\n');
        expect(pool.stats()).toMatchObject({
          restarts: 0,
          totals: { lostIsolates: 1, memoryLimits: 1, crashedEpisodes: 0 },
        });
        // The worker drains: it serves while it is the only one, and is replaced once its episodes are gone.
        expect(pool.stats().workers[0]).toMatchObject({ pid: firstPid, draining: true });
        const late = await pool.openEpisode({ ctx: 'late' });
        expect((await late.run('print(ctx)')).stdout).toBe('late\n');
        await Promise.all([bystander.close(), late.close()]);
        await expect.poll(() => pool.stats().workers[0]!.ready && pool.stats().workers[0]!.pid !== firstPid).toBe(true);
        expect(pool.stats()).toMatchObject({ restarts: 1, totals: { crashedEpisodes: 0, recycled: 0 } });
        expect(pool.stats().workers[0]!.draining).toBe(false);
      } finally {
        await pool.close();
      }
    },
  );

  it('kills a worker at once when it has lost three isolates, ending the episodes beside them', async () => {
    const pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1 });
    try {
      const bystander = await pool.openEpisode({ ctx: 'bystander' });
      const limits = { memoryMb: 32, stepCpuMs: 30_000, stepWallMs: 30_000 };
      const bomb = 'const m = new Map(); let i = 0; while (true) m.set(i++, "v" + i);';
      for (let lost = 1; lost <= 3; lost++) {
        const result = await (await pool.openEpisode({ ctx: '', limits })).run(bomb);
        expect(result).toMatchObject({ error: { code: 'memory_limit' }, brokeWorker: true });
        expect(pool.stats().totals.lostIsolates).toBe(lost);
      }
      expect((await bystander.run('print(1)')).error?.code).toBe('worker_crashed');
      await expect.poll(() => pool.stats().workers[0]!.ready).toBe(true);
      expect(pool.stats()).toMatchObject({ restarts: 1, totals: { crashedEpisodes: 1 } });
    } finally {
      await pool.close();
    }
  });

  it('replaces a worker after recycleAfterEpisodes episodes, once its last one closes, losing none', async () => {
    const pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1, recycleAfterEpisodes: 3 });
    try {
      const firstPid = pool.stats().workers[0]!.pid;
      const episodes = [];
      for (const ctx of ['a', 'b', 'c', 'd']) episodes.push(await pool.openEpisode({ ctx }));
      // Past its quota the worker drains, but it is the only one: it still serves, and nothing is cut off.
      expect(pool.stats().workers[0]).toMatchObject({ pid: firstPid, draining: true, activeEpisodes: 4 });
      await episodes[0]!.close();
      expect((await episodes[3]!.run('print(ctx)')).stdout).toBe('d\n');
      for (const episode of episodes.slice(1)) await episode.close();
      await expect.poll(() => pool.stats().workers[0]!.ready && pool.stats().workers[0]!.pid !== firstPid).toBe(true);
      expect(pool.stats().totals).toMatchObject({ recycled: 1, crashedEpisodes: 0 });
      expect(pool.stats().workers[0]!.draining).toBe(false);
      const fresh = await pool.openEpisode({ ctx: 'e' });
      expect((await fresh.run('print(ctx)')).stdout).toBe('e\n');
    } finally {
      await pool.close();
    }
  });

  it('hosts low-priority episodes on their own workers, every thread of which runs at nice 19', async () => {
    const twoClasses = await SandboxPool.start({ workers: 1, lowPriorityWorkers: 1, warmIsolatesPerWorker: 1 });
    try {
      const low = await twoClasses.openEpisode({ ctx: 'low', priority: 'low' });
      const normal = await twoClasses.openEpisode({ ctx: 'normal' });
      // Threads that run guest code start with the first step: they must inherit the worker's priority too.
      expect((await low.run('let n = 0; for (let i = 0; i < 1e6; i++) n += i; print(ctx)')).stdout).toBe('low\n');
      expect((await normal.run('print(ctx)')).stdout).toBe('normal\n');
      const [normalWorker, lowWorker] = twoClasses.stats().workers;
      expect(normalWorker).toMatchObject({ priority: 'normal', activeEpisodes: 1 });
      expect(lowWorker).toMatchObject({ priority: 'low', activeEpisodes: 1 });
      expect(new Set(threadNices(lowWorker!.pid!))).toEqual(new Set([19]));
      expect(new Set(threadNices(normalWorker!.pid!))).toEqual(new Set([getPriority()]));
      expect(twoClasses.stats().totals.lowPriorityEpisodes).toBe(1);
    } finally {
      await twoClasses.close();
    }
  });

  it('hosts a low-priority episode on its normal workers when it has no low-priority ones, and rejects others', async () => {
    const episode = await pool.openEpisode({ ctx: 'x', priority: 'low' });
    expect((await episode.run('print(ctx)')).stdout).toBe('x\n');
    expect(pool.stats().workers.every((w) => w.priority === 'normal')).toBe(true);
    expect(pool.stats().totals.lowPriorityEpisodes).toBe(0);
    await episode.close();
    await expect(pool.openEpisode({ ctx: '', priority: 'idle' as never })).rejects.toThrow(
      /priority must be "normal" or "low", got "idle"/,
    );
    await expect(SandboxPool.start({ lowPriorityWorkers: -1 })).rejects.toThrow(/lowPriorityWorkers must be/);
  });

  it('closes episodes left idle', async () => {
    const idlePool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 1, idleTimeoutMs: 300 });
    try {
      const episode = await idlePool.openEpisode({ ctx: 'x' });
      await expect.poll(() => idlePool.stats().totals.idleReaped, { timeout: 3_000 }).toBe(1);
      const result = await episode.run('1');
      expect(result.error).toEqual({
        code: 'closed',
        message: expect.stringMatching(/closed after \d+ ms without a step/),
      });
      expect(idlePool.stats().activeEpisodes).toBe(0);
    } finally {
      await idlePool.close();
    }
  });

  it('fails to open once closed', async () => {
    const closed = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 0 });
    await closed.close();
    await expect(closed.openEpisode({ ctx: '' })).rejects.toThrow(/sandbox pool is closed/);
  });
});

describe('worker process', () => {
  it('answers a message sent after its IPC channel closed at once, without an error event, before its exit', async () => {
    let exited = false;
    const worker = new WorkerProcess(
      0,
      'normal',
      0,
      64,
      () => undefined,
      () => (exited = true),
    );
    worker.spawn();
    await worker.whenReady(true);
    worker.child!.disconnect();
    await expect(worker.request({ type: 'close', episodeId: 'gone' })).resolves.toBeNull();
    worker.send({ type: 'llm_reply', callId: 1, ok: false, message: 'too late' });
    expect(exited).toBe(false);
    await expect.poll(() => exited, { timeout: 5_000 }).toBe(true);
  });
});
