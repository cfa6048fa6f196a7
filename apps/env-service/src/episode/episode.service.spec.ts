import { createLogger } from '@fathom/observability';
import { ByteTokenizer } from '@fathom/model';
import type {
  EpisodePriority,
  LlmHandler,
  OpenEpisodeOptions,
  SandboxEpisode,
  SandboxLimits,
  SandboxPoolStats,
  StepError,
  StepResult,
} from '@fathom/sandbox';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import type { EnvError } from '../errors';
import type { InferencePort, ReadSpanRequest } from '../inference/inference.client';
import { EnvMetrics } from '../metrics';
import { EpisodeService, type ReplPool } from './episode.service';
import { TaskStore } from './task.store';

/** TEST DOUBLE of the sandbox pool: each step resolves after `stepMs` with `print`-like output of the code. */
class FakeReplPool implements ReplPool {
  readonly closed: string[] = [];
  /** The priority each episode was opened with, in order. */
  readonly priorities: (EpisodePriority | undefined)[] = [];
  llm: LlmHandler | null = null;

  constructor(private readonly stepMs = 0) {}

  async openEpisode(options: {
    ctx: string;
    id: string;
    llm: LlmHandler;
    priority?: EpisodePriority;
  }): Promise<SandboxEpisode> {
    this.llm = options.llm;
    this.priorities.push(options.priority);
    const { stepMs, closed } = this;
    let steps = 0;
    return {
      id: options.id,
      depth: 0,
      limits: {} as SandboxLimits,
      alive: true,
      get steps() {
        return steps;
      },
      // Like the real sandbox, a step over its wall limit (`wallMs`) is stopped at the limit and ends the episode.
      run: async (code: string, options?: { wallMs?: number }): Promise<StepResult> => {
        const wallMs = options?.wallMs ?? Infinity;
        await new Promise((resolve) => setTimeout(resolve, Math.min(stepMs, wallMs)));
        steps++;
        // Like the real sandbox, CPU_HOG runs into the CPU limit, which ends the episode.
        if (code === CPU_HOG) {
          return endedStep(
            { code: 'cpu_limit', message: 'step exceeded its CPU-time limit' },
            { cpuMs: 2_000, wallMs: 2_000 },
          );
        }
        // A step whose worker process died under it, marked (KILLS_WORKER) or not (a bystander's, WORKER_GONE).
        if (code === KILLS_WORKER || code === WORKER_GONE) {
          const error = { code: 'worker_crashed' as const, message: 'worker process exited' };
          return endedStep(error, { wallMs: 5, ...(code === KILLS_WORKER && { brokeWorker: true }) });
        }
        if (stepMs > wallMs) {
          return endedStep(
            { code: 'timeout', message: `step exceeded its wall-time limit of ${wallMs} ms` },
            { wallMs },
          );
        }
        return {
          stdout: `ran ${code}\n`,
          truncatedChars: 0,
          error: null,
          variables: ['x'],
          cpuMs: 1,
          wallMs: 1,
          llmCalls: [],
          alive: true,
          answer: null,
        };
      },
      close: async () => {
        closed.push(options.id);
      },
    };
  }

  stats(): SandboxPoolStats {
    return { workers: [], restarts: 0, activeEpisodes: 0, warm: 0, totals: {} as SandboxPoolStats['totals'] };
  }

  async close(): Promise<void> {}
}

/** A step result that ended its episode with `error`, as the sandbox answers one. */
function endedStep(error: StepError, fields: Partial<StepResult> = {}): StepResult {
  const empty = { stdout: '', truncatedChars: 0, variables: [], cpuMs: 0, wallMs: 0, llmCalls: [] };
  return { ...empty, error, alive: false, answer: null, ...fields };
}

const CPU_HOG = 'while (true) {}';
const KILLS_WORKER = 'kills its worker';
const WORKER_GONE = 'finds its worker gone';

const TASK = { context: 'The harbour code is 77.', question: 'What is the harbour code?', answer: '77' };

function service(env: Record<string, string> = {}, pool = new FakeReplPool(), inference?: InferencePort) {
  const config = loadConfig({ INFERENCE_ADDRESS: 'localhost:1', ...env });
  const deps = {
    config,
    pool,
    tasks: new TaskStore([]),
    inference: inference ?? { generate: () => Promise.reject(new Error('unused')), close: () => undefined },
    metrics: new EnvMetrics(),
    logger: createLogger({ service: 'test', level: 'silent' }),
  };
  return { svc: new EpisodeService(deps), pool, deps };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: EnvError) => e.code,
  );

describe('EpisodeService', () => {
  it('counts resets in flight against MAX_CONCURRENT_ENVS, so concurrent resets cannot overshoot it', async () => {
    const { svc } = service({ MAX_CONCURRENT_ENVS: '3' });
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => svc.reset(TASK, 'http')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(3);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r.reason as EnvError).code)).toEqual([
      'CAPACITY_REACHED',
      'CAPACITY_REACHED',
    ]);
    svc.shutdown();
  });

  it('a session slot holds capacity from acquire to release; resets under it take no other slot', async () => {
    const { svc } = service({ MAX_CONCURRENT_ENVS: '2' });
    const slot = svc.acquireSlot();
    expect(svc.liveCount).toBe(1);
    await svc.reset(TASK, 'ws', slot);
    expect(svc.liveCount).toBe(1);
    await svc.reset(TASK, 'http');
    expect(svc.liveCount).toBe(2);
    expect(() => svc.acquireSlot()).toThrow(expect.objectContaining({ code: 'CAPACITY_REACHED' }));
    expect(await codeOf(svc.reset(TASK, 'http'))).toBe('CAPACITY_REACHED');
    svc.releaseSlot(slot);
    // The slot's episode, not closed yet, now counts on its own.
    expect(svc.liveCount).toBe(2);
    svc.shutdown();
  });

  it('a scratch step runs in a fresh unscored episode over no document and closes it', async () => {
    const { svc, pool } = service({ MAX_CONCURRENT_ENVS: '1' });
    const reply = await svc.stepScratch({ action: { answer: '77' } }, 'http');
    expect(reply).toMatchObject({ done: true, reward: null, observation: { correct: null, context_chars: 0 } });
    expect(pool.closed).toContain(reply.observation.episode_id);
    expect(svc.liveCount).toBe(0);
    expect(await codeOf(Promise.resolve().then(() => svc.state(reply.observation.episode_id)))).toBe(
      'EPISODE_NOT_FOUND',
    );
    svc.shutdown();
  });

  it('a done episode frees its sandbox but keeps its state and its capacity until closed', async () => {
    const { svc, pool } = service({ MAX_CONCURRENT_ENVS: '1' });
    const { episode } = await svc.reset(TASK, 'http');
    const reply = await svc.step(episode.id, { action: { answer: '77' } }, 'http');
    expect(reply).toMatchObject({ done: true, observation: { correct: true } });
    expect(pool.closed).toEqual([episode.id]);
    expect(svc.liveCount).toBe(1);
    expect(svc.state(episode.id)).toMatchObject({ done: true, step_count: 1 });
    expect(await codeOf(svc.reset(TASK, 'http'))).toBe('CAPACITY_REACHED');
    expect(await codeOf(svc.step(episode.id, { action: { code: 'x' } }, 'http'))).toBe('EPISODE_DONE');
    await svc.close(episode.id);
    expect(svc.liveCount).toBe(0);
    expect(await codeOf(svc.reset(TASK, 'http'))).toBeNull();
    svc.shutdown();
  });

  it('an episode opened under a session slot can be stepped, read and closed only by that slot', async () => {
    const { svc } = service();
    const owner = svc.acquireSlot();
    const other = svc.acquireSlot();
    const { episode } = await svc.reset(TASK, 'ws', owner);
    for (const caller of [null, other]) {
      expect(await codeOf(svc.step(episode.id, { action: { code: 'x' } }, 'http', caller))).toBe('EPISODE_FORBIDDEN');
      expect(() => svc.state(episode.id, caller)).toThrow(expect.objectContaining({ code: 'EPISODE_FORBIDDEN' }));
      expect(await codeOf(svc.close(episode.id, caller))).toBe('EPISODE_FORBIDDEN');
    }
    expect(await codeOf(svc.reset({ ...TASK, episode_id: episode.id }, 'ws', other))).toBe('EPISODE_EXISTS');
    expect((await svc.step(episode.id, { action: { code: 'x' } }, 'ws', owner)).observation.step).toBe(1);
    await svc.close(episode.id, owner);
    svc.shutdown();
  });

  it('issues a random id when none is given and refuses a reset of an open id without closing it', async () => {
    const { svc, pool } = service();
    const { episode } = await svc.reset(TASK, 'http');
    expect(episode.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    await svc.step(episode.id, { action: { answer: '77' } }, 'http');
    expect(await codeOf(svc.reset({ ...TASK, episode_id: episode.id }, 'grpc', svc.acquireSlot()))).toBe(
      'EPISODE_EXISTS',
    );
    expect(svc.state(episode.id)).toMatchObject({ done: true, step_count: 1 });
    expect(pool.closed).toEqual([episode.id]);
    svc.shutdown();
  });

  it('of 25 concurrent resets of one id by 25 sessions exactly one wins; the others are EPISODE_EXISTS', async () => {
    const { svc } = service({}, new FakeReplPool(5));
    const results = await Promise.all(
      Array.from({ length: 25 }, () => codeOf(svc.reset({ ...TASK, episode_id: 'race' }, 'ws', svc.acquireSlot()))),
    );
    expect(results.filter((code) => code === null)).toHaveLength(1);
    expect(results.filter((code) => code === 'EPISODE_EXISTS')).toHaveLength(24);
    svc.shutdown();
  });

  it('refuses a client-chosen id outside a session, so "alice" cannot be closed and reset by another client', async () => {
    const { svc, pool } = service();
    for (const transport of ['http', 'grpc', 'mcp'] as const) {
      const refused = Promise.resolve().then(() => svc.reset({ ...TASK, episode_id: 'alice' }, transport));
      await expect(refused).rejects.toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/episode_id "alice" refused: .*server assigns episode ids/),
      });
    }
    expect(pool.priorities).toEqual([]);
    expect(svc.liveCount).toBe(0);
    svc.shutdown();
  });

  it('runs the steps of one episode one at a time, in arrival order', async () => {
    const { svc } = service({}, new FakeReplPool(5));
    const { episode } = await svc.reset(TASK, 'grpc');
    const replies = await Promise.all(
      ['a', 'b', 'c'].map((code) => svc.step(episode.id, { action: { code } }, 'grpc')),
    );
    expect(replies.map((r) => [r.observation.step, r.observation.stdout])).toEqual([
      [1, 'ran a\n'],
      [2, 'ran b\n'],
      [3, 'ran c\n'],
    ]);
    svc.shutdown();
  });

  it("opens a session's next episode at low priority after a step that used up its CPU or killed its worker", async () => {
    const { svc, pool } = service({ STEP_TIMEOUT_MS: '5000' }, new FakeReplPool(100));
    const slot = svc.acquireSlot();
    const stepUnder = async (code: string, timeoutS?: number) => {
      const { episode } = await svc.reset(TASK, 'ws', slot);
      return svc.step(episode.id, { action: { code }, timeout_s: timeoutS }, 'ws', slot);
    };
    expect((await stepUnder(CPU_HOG)).observation.error?.code).toBe('cpu_limit');
    expect((await stepUnder(CPU_HOG)).observation.error?.code).toBe('cpu_limit');
    // A step that waits into its wall-time limit uses no CPU: it moves the session back.
    expect((await stepUnder('wait', 0.01)).observation.error?.code).toBe('timeout');
    await stepUnder(KILLS_WORKER);
    await stepUnder(WORKER_GONE);
    await stepUnder('print(1)');
    expect(pool.priorities).toEqual(['normal', 'low', 'low', 'normal', 'low', 'normal']);
    // Outside a session (HTTP) there is no client to remember: every reset opens normally.
    const { episode } = await svc.reset(TASK, 'http');
    await svc.step(episode.id, { action: { code: CPU_HOG } }, 'http');
    await svc.reset(TASK, 'http');
    expect(pool.priorities.slice(-2)).toEqual(['normal', 'normal']);
    svc.shutdown();
  });

  it('answers at the timeout_s deadline with a timeout that ends the episode', async () => {
    const { svc } = service({ STEP_TIMEOUT_MS: '5000' }, new FakeReplPool(300));
    const { episode } = await svc.reset(TASK, 'http');
    const started = Date.now();
    const reply = await svc.step(episode.id, { action: { code: 'slow' }, timeout_s: 0.05 }, 'http');
    expect(Date.now() - started).toBeLessThan(250);
    expect(reply).toMatchObject({ done: true, observation: { error: { code: 'timeout' } } });
    svc.shutdown();
  });

  it('reads an llm() chunk within the reader window as a leaf: one rendered sub-call prompt to the inference port', async () => {
    const requests: { prompt: string; max_tokens: number; depth: number; episode_id: string }[] = [];
    const inference: InferencePort = {
      generate: async (request) => {
        requests.push(request);
        return { text: 'blue', prompt_tokens: 12, completion_tokens: 1, finish_reason: 'stop' };
      },
      close: () => undefined,
    };
    const { svc, pool } = service({ LLM_MAX_TOKENS: '64' }, new FakeReplPool(), inference);
    const { episode } = await svc.reset(TASK, 'ws');
    const reply = await pool.llm!({
      prompt: 'Which colour?',
      chunk: 'the sky is blue',
      depth: 1,
      episodeId: episode.id,
      tokenBudget: 2000,
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ max_tokens: 64, depth: 1, episode_id: episode.id });
    expect(requests[0].prompt).toContain('Which colour?\n\nText:\nthe sky is blue');
    // Exact token counts of the byte-level encoding of what was sent and returned (+1: the end-of-turn token).
    expect(reply).toEqual({
      text: 'blue',
      promptTokens: new ByteTokenizer().encode(requests[0].prompt).length,
      completionTokens: 5,
    });
    svc.shutdown();
  });

  it("reads a leaf with the inference port's span reader when it has one, labelled with the episode and depth", async () => {
    const reads: ReadSpanRequest[] = [];
    const inference: InferencePort = {
      generate: () => Promise.reject(new Error('a leaf read by the span reader generates nothing')),
      hasSpanReader: async () => true,
      readSpan: async (request) => {
        reads.push(request);
        return { text: 'blue', answered: true, start: 9, end: 9, logprob: -0.1, prompt_tokens: 11 };
      },
      close: () => undefined,
    };
    const { svc, pool } = service({ LLM_TEMPERATURE: '0' }, new FakeReplPool(), inference);
    const { episode } = await svc.reset(TASK, 'ws');
    const reply = await pool.llm!({
      prompt: 'Which colour?',
      chunk: 'the sky is blue',
      depth: 1,
      episodeId: episode.id,
      tokenBudget: 2000,
    });
    expect(reads).toEqual([
      expect.objectContaining({
        question: 'Which colour?',
        chunk: 'the sky is blue',
        temperature: 0,
        episode_id: episode.id,
        depth: 1,
      }),
    ]);
    // The span's tokens are its completion.
    expect(reply).toEqual({ text: 'blue', promptTokens: 11, completionTokens: 1 });
    svc.shutdown();
  });

  it('runs an llm() chunk above the reader window as a child episode whose turns the inference port writes', async () => {
    const prompts: string[] = [];
    const inference: InferencePort = {
      generate: async (request) => {
        prompts.push(request.prompt);
        const text = request.prompt.includes('Output:') ? '<answer>blue</answer>' : '```js\nprint(1)\n```';
        return { text, prompt_tokens: 0, completion_tokens: 0, finish_reason: 'stop' };
      },
      close: () => undefined,
    };
    const opened: OpenEpisodeOptions[] = [];
    const pool = new (class extends FakeReplPool {
      override openEpisode(options: OpenEpisodeOptions & { id: string; llm: LlmHandler }) {
        opened.push(options);
        return super.openEpisode(options);
      }
    })();
    const { svc } = service({ LLM_READER_WINDOW_CHARS: '100' }, pool, inference);
    const { episode } = await svc.reset(TASK, 'ws');
    const chunk = 'The sky is blue. '.repeat(20);
    const reply = await opened[0].llm!({
      prompt: 'Which colour?',
      chunk,
      depth: 1,
      episodeId: episode.id,
      tokenBudget: 8000,
    });
    expect(reply.text).toBe('blue');
    expect(opened[1]).toMatchObject({ ctx: chunk, question: 'Which colour?', depth: 1 });
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain(`Question: Which colour?\nctx: ${chunk.length} characters`);
    expect(prompts[1]).toContain('Output:\nran print(1)');
    svc.shutdown();
  });

  it('unknown episodes are EPISODE_NOT_FOUND for step, state and close', async () => {
    const { svc } = service();
    expect(await codeOf(svc.step('ghost', { action: { code: '1' } }, 'http'))).toBe('EPISODE_NOT_FOUND');
    expect(() => svc.state('ghost')).toThrow(/not found/);
    expect(await codeOf(svc.close('ghost'))).toBe('EPISODE_NOT_FOUND');
    svc.shutdown();
  });
});
