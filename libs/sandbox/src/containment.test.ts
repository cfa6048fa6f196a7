import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StepErrorCode } from './errors';
import { SandboxPool } from './pool';
import { echoLlmDouble, expectContained } from './test-helpers';
import type { StepResult } from './types';

// Each attack runs in its own episode while bystander episodes on every worker keep stepping
// (expectContained); afterwards the pool must still be healthy and unpolluted.
let pool: SandboxPool;

beforeAll(async () => {
  pool = await SandboxPool.start({
    workers: 2,
    warmIsolatesPerWorker: 2,
    defaults: { stepCpuMs: 150, stepWallMs: 5_000, memoryMb: 32, maxLlmCalls: 3, maxDepth: 1 },
  });
});

afterAll(() => pool.close());

async function attack(code: string, limits = {}): Promise<{ first: StepResult; next: StepResult }> {
  let first!: StepResult;
  let next!: StepResult;
  await expectContained(pool, async () => {
    const episode = await pool.openEpisode({ ctx: 'secret document', limits, llm: echoLlmDouble });
    first = await episode.run(code);
    next = await episode.run('print("still here")');
    await episode.close();
  });
  return { first, next };
}

function expectEnded(result: { first: StepResult; next: StepResult }, codes: StepErrorCode[]): void {
  expect(codes).toContain(result.first.error?.code);
  expect(result.first.alive).toBe(false);
  expect(result.next.error?.code).toBe(result.first.error?.code);
}

describe('containment', () => {
  it('stops while(true){} on the CPU limit', async () => {
    expectEnded(await attack('while (true) {}'), ['cpu_limit']);
  });

  it('stops a tight loop inside try/finally', async () => {
    expectEnded(await attack('while (true) { try { while (true) {} } finally { continue; } }'), ['cpu_limit']);
  });

  it('stops an infinite loop on the wall-time limit when that is the tighter one', async () => {
    expectEnded(await attack('for (;;) {}', { stepCpuMs: 60_000, stepWallMs: 100 }), ['timeout']);
  });

  it('stops a step on a lower per-step wall limit and rejects a bad one', async () => {
    let first!: StepResult;
    await expectContained(pool, async () => {
      const episode = await pool.openEpisode({ ctx: '', limits: { stepCpuMs: 60_000 } });
      await expect(episode.run('1', { wallMs: -1 })).rejects.toThrow(/wallMs must be a positive number/);
      first = await episode.run('for (;;) {}', { wallMs: 80 });
      await episode.close();
    });
    expect(first.error).toEqual({ code: 'timeout', message: expect.stringContaining('wall-time limit of 80 ms') });
  });

  it('stops array growth on the memory limit', async () => {
    expectEnded(await attack('const a = []; while (true) a.push(new Array(1e6).fill(1.5));', { stepCpuMs: 3_000 }), [
      'memory_limit',
    ]);
  });

  it('survives string doubling (a catchable RangeError or the memory limit)', async () => {
    const { first, next } = await attack('let s = "x"; while (true) s += s;');
    expect(['runtime', 'memory_limit']).toContain(first.error?.code);
    if (first.error?.code === 'runtime') {
      expect(first.error.message).toMatch(/RangeError/);
      expect(next.stdout).toBe('still here\n');
    }
  });

  it('truncates an output flood with a marker and keeps the episode', async () => {
    const { first, next } = await attack('for (let i = 0; i < 20000; i++) print("0123456789")');
    expect(first.error).toBeNull();
    expect(first.truncatedChars).toBe(20000 * 11 - 4000);
    expect(first.stdout).toMatch(/…\[truncated 216000 chars\]$/);
    expect(next.stdout).toBe('still here\n');
  });

  it('stops an endless print flood on the CPU limit', async () => {
    expectEnded(await attack('while (true) print("x".repeat(1000))'), ['cpu_limit']);
  });

  it('turns deep recursion into a catchable RangeError', async () => {
    const { first, next } = await attack('function r(n) { return r(n + 1) + 1 } r(0)', { stepCpuMs: 3_000 });
    expect(first.error).toEqual({ code: 'runtime', message: 'RangeError: Maximum call stack size exceeded' });
    expect(next.stdout).toBe('still here\n');
  });

  it('refuses a 100 MB answer() with a clear error, not a crash', async () => {
    const { first, next } = await attack('answer("x".repeat(1e8))');
    expect(first).toMatchObject({
      error: {
        code: 'runtime',
        message:
          'RangeError: answer() value of 100000000 characters exceeds the limit of 10000 characters (maxAnswerChars)',
      },
      answer: null,
      alive: true,
    });
    expect(next.stdout).toBe('still here\n');
  });

  it('refuses llm() spam beyond the call cap', async () => {
    const { first, next } = await attack('for (let i = 0; i < 100; i++) llm("q" + i)');
    expect(first.error?.code).toBe('llm_limit');
    expect(first.error?.message).toMatch(/LlmError: llm\(\) call limit reached \(3 per episode\)/);
    expect(first.llmCalls.filter((c) => c.error === undefined)).toHaveLength(3);
    expect(next.stdout).toBe('still here\n');
  });

  it('refuses llm() spam that catches each refusal, until the CPU limit', async () => {
    const { first } = await attack('while (true) { try { llm("q") } catch (e) {} }');
    expect(first.error?.code).toBe('cpu_limit');
  });

  it('refuses recursion deeper than allowed', async () => {
    const { first } = await attack('print(llm("q"))', { maxDepth: 0 });
    expect(first.error?.code).toBe('llm_limit');
    expect(first.error?.message).toMatch(/depth limit reached \(max depth 0\)/);
  });

  it('exposes no require, process or host objects', async () => {
    const probes = [
      'typeof require',
      'typeof process',
      'typeof module',
      'globalThis.constructor.constructor("return typeof process")()',
      'typeof setTimeout',
      'typeof fetch',
      'typeof WebAssembly',
      'typeof SharedArrayBuffer',
      'typeof Atomics',
      'typeof ivm',
    ];
    const { first } = await attack(`print([${probes.join(', ')}].join(','))`);
    expect(first).toMatchObject({ error: null, stdout: `${Array(probes.length).fill('undefined').join(',')}\n` });
    const { first: escape } = await attack('globalThis.constructor.constructor("return process")().exit(1)');
    expect(escape.error).toEqual({ code: 'runtime', message: 'ReferenceError: process is not defined' });
  });

  it('gives Error.prepareStackTrace only guest-realm frames', async () => {
    const code = `
      Error.prepareStackTrace = (e, frames) => frames.map((f) => {
        const self = f.getThis();
        const fn = f.getFunction && f.getFunction();
        return [typeof (self && self.process), typeof (fn && fn.constructor("return typeof process")())].join('/');
      }).join(' ');
      print(new Error('x').stack);
      try { llm({ toString() { throw new Error('y') } }) } catch (e) { print(typeof e.stack) }`;
    const { first } = await attack(code);
    expect(first.error).toBeNull();
    expect(first.stdout).not.toMatch(/object|function/);
  });

  it('keeps prototype pollution inside the guest', async () => {
    const code = `
      Object.prototype.polluted = 'yes';
      Array.prototype.push = function () { while (true) {} };
      String.prototype.slice = function () { return 'x'.repeat(1e6) };
      Object.getOwnPropertyNames = function () { while (true) {} };
      JSON.stringify = function () { while (true) {} };
      print('a'.repeat(5000));
      const marker = 1;`;
    const { first, next } = await attack(code);
    expect(first).toMatchObject({ error: null, truncatedChars: 1001, variables: ['marker'] });
    expect(first.stdout).toHaveLength(4000 + '…[truncated 1001 chars]'.length);
    expect(next.stdout).toBe('still here\n');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('bounds what a step sends back, however long the names and messages', async () => {
    const code =
      'for (let i = 0; i < 150; i++) globalThis["v" + i + "x".repeat(500)] = i; throw new Error("m".repeat(1e5))';
    const { first } = await attack(code);
    expect(first.error?.code).toBe('runtime');
    expect(first.variables).toHaveLength(100);
    expect(Math.max(...first.variables.map((v) => v.length))).toBe(81);
    expect(first.values).toHaveLength(100);
    expect(first.error?.message.length).toBeLessThanOrEqual(2001);
  });

  it('stops async loops made of promise chains', async () => {
    expectEnded(await attack('(async () => { while (true) { await null } })()'), ['cpu_limit']);
    expectEnded(await attack('function f() { return Promise.resolve().then(f) } f()'), ['cpu_limit']);
  });
});
