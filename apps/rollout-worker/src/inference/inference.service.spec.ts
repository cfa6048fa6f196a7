import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ByteTokenizer, type DecodeBackend, type DecodePrompt, type DecodeSession } from '@fathom/model';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InferenceError } from './inference.errors';
import { checkpointModelLoader, type InferenceModel } from './inference.model';
import { InferenceService, type GenerateParams } from './inference.service';

const tokenizer = new ByteTokenizer();
const IM_END_ID = tokenizer.tokenId('<|im_end|>')!;

/**
 * TEST DOUBLE. A decoder whose greedy continuation of any prompt is `script` (then `script`'s last token forever):
 * each position's logits put all the mass on the scripted token. Counts open sessions to show requests never overlap.
 */
class ScriptedDecodeBackend implements DecodeBackend {
  readonly vocabSize = 260;
  readonly prompts: number[][] = [];
  open = 0;
  maxOpen = 0;

  constructor(
    private readonly script: readonly number[],
    readonly maxLength = 64,
  ) {}

  private logitsAt(position: number, rows: number): Float32Array {
    const token = this.script[Math.min(position, this.script.length - 1)];
    const logits = new Float32Array(this.vocabSize * rows);
    for (let r = 0; r < rows; r++) logits[r * this.vocabSize + token] = 10;
    return logits;
  }

  async start(prompts: readonly DecodePrompt[]): Promise<{ session: DecodeSession; logits: Float32Array }> {
    // Yield first, as the real decoder does, so that overlapping requests would interleave here.
    await new Promise((resolve) => setImmediate(resolve));
    const [{ tokens: prompt, rows }] = prompts;
    this.prompts.push([...prompt]);
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    let position = 0;
    const session: DecodeSession = {
      rows,
      retain: () => undefined,
      step: async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return this.logitsAt(++position, rows);
      },
      close: () => {
        this.open--;
      },
    };
    return { session, logits: this.logitsAt(0, rows) };
  }
}

function scriptedModel(backend: ScriptedDecodeBackend): InferenceModel {
  return {
    source: '/checkpoints/scripted',
    decoder: backend,
    tokenizer,
    stopTokens: [IM_END_ID],
    reader: null,
    release: async () => undefined,
  };
}

const request = (extra: Partial<GenerateParams> = {}): GenerateParams => ({
  prompt: 'Question?',
  maxTokens: 32,
  temperature: 0,
  stop: [],
  seed: 1,
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<InferenceError> {
  const error = await promise.then(
    () => {
      throw new Error('expected the request to be refused');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InferenceError);
  return error as InferenceError;
}

describe('InferenceService', () => {
  const answer = [...tokenizer.encode('hello world'), IM_END_ID];

  it('answers with the completion, without the end-of-turn token that ended it', async () => {
    const backend = new ScriptedDecodeBackend(answer);
    const service = new InferenceService(async () => scriptedModel(backend));
    await expect(service.generate(request())).resolves.toEqual({
      text: 'hello world',
      promptTokens: tokenizer.encode('Question?').length,
      completionTokens: answer.length,
      finishReason: 'stop',
    });
    expect(backend.prompts).toEqual([tokenizer.encode('Question?')]);
  });

  it('stops at max_tokens with finish_reason "length"', async () => {
    const service = new InferenceService(async () => scriptedModel(new ScriptedDecodeBackend(answer)));
    await expect(service.generate(request({ maxTokens: 5 }))).resolves.toMatchObject({
      text: 'hello',
      completionTokens: 5,
      finishReason: 'length',
    });
  });

  it('ends at the first stop string and leaves it out of the text', async () => {
    const service = new InferenceService(async () => scriptedModel(new ScriptedDecodeBackend(answer)));
    await expect(service.generate(request({ stop: ['wor'] }))).resolves.toEqual({
      text: 'hello ',
      promptTokens: 9,
      completionTokens: 'hello wor'.length,
      finishReason: 'stop',
    });
    // "o w" completes before "ld" would, and the text ends before it.
    await expect(service.generate(request({ stop: ['ld', 'o w'] }))).resolves.toMatchObject({
      text: 'hell',
      completionTokens: 'hello w'.length,
      finishReason: 'stop',
    });
  });

  it.each([
    [{ prompt: '' }, /prompt is empty/],
    [{ maxTokens: 0 }, /max_tokens must be at least 1, got 0/],
    [{ temperature: -0.5 }, /temperature must be a finite number ≥ 0, got -0.5/],
    [{ temperature: Number.NaN }, /temperature must be a finite number ≥ 0, got NaN/],
    [{ stop: ['</answer>', ''] }, /stop\[1\] is an empty string/],
  ])('refuses %o as INVALID_ARGUMENT without loading the model', async (bad, message) => {
    const load = vi.fn(async () => scriptedModel(new ScriptedDecodeBackend(answer)));
    const error = await refusal(new InferenceService(load).generate(request(bad)));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toMatch(message);
    expect(load).not.toHaveBeenCalled();
  });

  it("refuses a prompt that fills the model's context, naming both lengths", async () => {
    const backend = new ScriptedDecodeBackend(answer, 8);
    const service = new InferenceService(async () => scriptedModel(backend));
    const error = await refusal(service.generate(request({ prompt: '12345678' })));
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toBe("prompt is 8 tokens; the model's context holds 8, so a prompt may have at most 7");
    await expect(service.generate(request({ prompt: '1234567', maxTokens: 5 }))).resolves.toMatchObject({
      text: 'h',
      finishReason: 'length',
    });
    expect(backend.prompts).toHaveLength(1);
  });

  it('loads the model once, and tries again after a failed load', async () => {
    const backend = new ScriptedDecodeBackend(answer);
    const load = vi
      .fn<() => Promise<InferenceModel>>()
      .mockRejectedValueOnce(new InferenceError('MODEL_UNAVAILABLE', 'folder /m does not exist'))
      .mockResolvedValue(scriptedModel(backend));
    const service = new InferenceService(load);
    expect((await refusal(service.generate(request()))).code).toBe('MODEL_UNAVAILABLE');
    await service.generate(request());
    await service.generate(request());
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('runs concurrent requests one at a time, in arrival order', async () => {
    const backend = new ScriptedDecodeBackend(answer);
    const service = new InferenceService(async () => scriptedModel(backend));
    const replies = await Promise.all(
      ['first', 'second', 'third'].map((prompt) => service.generate(request({ prompt }))),
    );
    expect(replies.map((r) => r.text)).toEqual(['hello world', 'hello world', 'hello world']);
    expect(backend.maxOpen).toBe(1);
    expect(backend.prompts.map((p) => tokenizer.decode(p))).toEqual(['first', 'second', 'third']);
  });

  it('skips a request whose caller cancelled before its turn', async () => {
    const backend = new ScriptedDecodeBackend(answer);
    const service = new InferenceService(async () => scriptedModel(backend));
    const cancelled = new AbortController();
    const running = service.generate(request({ prompt: 'first' }));
    const queued = service.generate(request({ prompt: 'second' }), cancelled.signal);
    cancelled.abort();
    await running;
    expect((await refusal(queued)).code).toBe('CANCELLED');
    expect(backend.prompts.map((p) => tokenizer.decode(p))).toEqual(['first']);
  });

  it('refuses a span read of a checkpoint without a span reader, naming it; Describe says it has none', async () => {
    const service = new InferenceService(async () => scriptedModel(new ScriptedDecodeBackend(answer)));
    await expect(service.describe()).resolves.toEqual({ spanReader: false });
    const error = await refusal(service.readSpan({ question: 'Who?', chunk: 'Ann wrote it.', temperature: 0 }));
    expect(error.code).toBe('NO_SPAN_READER');
    expect(error.message).toBe(
      'inference checkpoint /checkpoints/scripted has no span reader (neither a span head nor a paired reader in ' +
        '/checkpoints/scripted/reader), so it answers llm() reads with Generate only',
    );
  });

  it('refuses a span read at a bad temperature as INVALID_ARGUMENT without loading the model', async () => {
    const load = vi.fn(async () => scriptedModel(new ScriptedDecodeBackend(answer)));
    const error = await refusal(
      new InferenceService(load).readSpan({ question: 'Who?', chunk: 'Ann.', temperature: -1 }),
    );
    expect([error.code, error.message]).toEqual([
      'INVALID_ARGUMENT',
      'temperature must be a finite number ≥ 0, got -1',
    ]);
    expect(load).not.toHaveBeenCalled();
  });

  it('releases the model on close', async () => {
    const release = vi.fn(async () => undefined);
    const service = new InferenceService(async () => ({
      ...scriptedModel(new ScriptedDecodeBackend(answer)),
      release,
    }));
    await service.generate(request());
    await service.close();
    expect(release).toHaveBeenCalledOnce();
  });
});

describe('checkpointModelLoader', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fathom-inference-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('names a missing checkpoint folder', async () => {
    const missing = join(dir, 'default-sft');
    const error = await refusal(checkpointModelLoader(missing)());
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toContain(`inference checkpoint folder ${missing} does not exist`);
  });

  it('names a folder libs/model cannot load, with its reason', async () => {
    const error = await refusal(checkpointModelLoader(dir)());
    expect(error.code).toBe('MODEL_UNAVAILABLE');
    expect(error.message).toMatch(new RegExp(`cannot load inference checkpoint ${dir}: .*config\\.json`));
  });
});
