import { ByteTokenizer, initParams, parseHfConfig, ReferenceDecodeBackend } from '@fathom/model';
import { SandboxPool } from '@fathom/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IM_END, renderPrompt, renderSubcallPrompt, segmentsText } from '../prompt';
import { OpenAiTestServer } from '../testing/openai-test.server';
import { EpisodeRunner } from './episode.runner';
import { RolloutError } from './errors';
import { chatMessagesOf, OpenAiChatClient, openAiLabel, parseOpenAiSpec } from './openai-generate';
import { SamplerPolicy } from './sampler-policy';
import { ScriptedTestPolicy } from './scripted-policy.test-double';
import { TextEndpointPolicy, type TextGenerationRequest } from './text-policy';

/** A tiny random byte-level model, served over HTTP by the test server. */
const config = parseHfConfig({
  architectures: ['Qwen2ForCausalLM'],
  vocab_size: 260,
  hidden_size: 16,
  intermediate_size: 32,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  num_key_value_heads: 1,
  head_dim: 8,
  rms_norm_eps: 1e-6,
  rope_theta: 10000,
  max_position_embeddings: 1024,
  tie_word_embeddings: true,
});
const tokenizer = new ByteTokenizer();
const model = new SamplerPolicy(new ReferenceDecodeBackend(config, initParams(config, 7)), tokenizer, 0);
const MODEL = 'tiny-fathom';

const prompt = segmentsText(renderSubcallPrompt('Which colour is the lamp?', 'The lamp is teal.'));
const request = (overrides: Partial<TextGenerationRequest> = {}): TextGenerationRequest => ({
  prompt,
  maxTokens: 12,
  temperature: 0,
  stop: [IM_END],
  seed: 3,
  ...overrides,
});

let server: OpenAiTestServer;
beforeAll(async () => {
  server = await OpenAiTestServer.start({ policy: model, model: MODEL });
});
afterAll(() => server.close());
afterEach(() => {
  server.requests.length = 0;
});

const clientOf = (options: ConstructorParameters<typeof OpenAiChatClient>[1] = {}) =>
  new OpenAiChatClient(parseOpenAiSpec(server.spec), { retryDelayMs: 5, ...options });

describe('parseOpenAiSpec', () => {
  it('reads openai:URL#MODEL, without a trailing slash, and labels it openai:MODEL@URL', () => {
    const endpoint = parseOpenAiSpec('openai:http://127.0.0.1:8000/v1/#qwen2.5-7b');
    expect(endpoint).toEqual({ baseUrl: 'http://127.0.0.1:8000/v1', model: 'qwen2.5-7b' });
    expect(openAiLabel(endpoint)).toBe('openai:qwen2.5-7b@http://127.0.0.1:8000/v1');
    expect(parseOpenAiSpec('openai:https://api.openai.com/v1#org/model-x').model).toBe('org/model-x');
  });

  it('names what is wrong with a malformed spec', () => {
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:8000/v1#m', /must start with "openai:"/],
      ['openai:http://127.0.0.1:8000/v1', /the model is missing/],
      ['openai:http://127.0.0.1:8000/v1#', /model name "" is empty/],
      ['openai:not a url#m', /"not a url" is not a URL/],
      ['openai:ftp://host/v1#m', /must be http or https/],
      ['openai:http://host/v1?x=1#m', /no query or fragment/],
    ];
    for (const [spec, message] of cases) {
      expect(() => parseOpenAiSpec(spec)).toThrow(RolloutError);
      expect(() => parseOpenAiSpec(spec)).toThrow(message);
    }
  });
});

describe('chatMessagesOf', () => {
  it('turns a rendered ChatML prompt back into its messages, without the open assistant header', () => {
    const rendered = segmentsText(renderPrompt({ question: 'Who?', context: 'Ann met Bo.', contextTokens: 3 }));
    const messages = chatMessagesOf(
      `${rendered}Let me look.${IM_END}\n<|im_start|>user\nOutput:\nBo${IM_END}\n<|im_start|>assistant\n`,
    );
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(messages[1].content).toMatch(/^Question: Who\?\nctx: 11 characters/);
    expect(messages[2].content).toBe('Let me look.');
    expect(messages[3].content).toBe('Output:\nBo');
  });

  it('refuses text that is not ChatML ending in an assistant header', () => {
    expect(() => chatMessagesOf('plain text')).toThrow(/must end with "<\|im_start\|>assistant\n"/);
    expect(() => chatMessagesOf(`stray<|im_start|>user\nhi${IM_END}\n<|im_start|>assistant\n`)).toThrow(
      /not ChatML at character 0: "stray/,
    );
    expect(() => chatMessagesOf(`<|im_start|>tool\nhi${IM_END}\n<|im_start|>assistant\n`)).toThrow(/not ChatML/);
  });
});

describe('OpenAiChatClient against a real OpenAI-compatible server', () => {
  it('sends the messages and sampling settings, and gets back what the model writes, with its usage counted', async () => {
    const client = clientOf();
    const reply = await client.generate(request());

    expect(server.requests).toHaveLength(1);
    const [sent] = server.requests;
    expect(sent).toMatchObject({ model: MODEL, max_tokens: 12, temperature: 0, seed: 3, stop: [IM_END] });
    expect(sent.messages).toEqual(chatMessagesOf(prompt));
    // The server renders the messages back into the very prompt: the model's own greedy reply comes back.
    const [[direct]] = await model.sample([{ prompt: tokenizer.encode(prompt), n: 1, maxNewTokens: 12, seed: 3 }], {
      temperature: 0,
      topP: 1,
      topK: 0,
      stopTokens: [tokenizer.tokenId(IM_END)!],
    });
    const stopped = direct.finishReason === 'stop_token';
    expect(reply.text).toBe(tokenizer.decode(stopped ? direct.tokens.slice(0, -1) : direct.tokens));
    expect(reply.finishReason).toBe(stopped ? 'stop' : 'length');
    expect(client.usage).toEqual({
      requests: 1,
      retries: 0,
      promptTokens: tokenizer.encode(prompt).length,
      completionTokens: direct.tokens.length,
    });

    await client.generate(request({ seed: 4 }));
    expect(client.usage.requests).toBe(2);
    expect(client.usage.promptTokens).toBe(2 * tokenizer.encode(prompt).length);
  });

  it('lists its model at GET /v1/models', async () => {
    const response = await fetch(`${server.baseUrl}/models`);
    expect(await response.json()).toMatchObject({ object: 'list', data: [{ id: MODEL, object: 'model' }] });
  });

  it('retries a 503 and a 429 with backoff, and counts the retries', async () => {
    const client = clientOf();
    server.inject({ status: 503 }, { status: 429 });
    const reply = await client.generate(request());
    expect(typeof reply.text).toBe('string');
    expect(server.requests).toHaveLength(3);
    expect(client.usage).toMatchObject({ requests: 1, retries: 2 });
  });

  it('gives up after its retries, naming the URL, the status and the attempts', async () => {
    const client = clientOf({ maxRetries: 1 });
    server.inject({ status: 503 }, { status: 503 });
    await expect(client.generate(request())).rejects.toThrow(
      new RegExp(`POST ${server.baseUrl}/chat/completions: HTTP 503 .*injected fault 503.*gave up after 2 attempts`),
    );
    expect(client.usage).toMatchObject({ requests: 0, retries: 1 });
  });

  it('rejects a 4xx at once, without retrying', async () => {
    const client = clientOf();
    server.inject({ status: 400 });
    await expect(client.generate(request())).rejects.toThrow(/HTTP 400 .*injected fault 400/);
    expect(server.requests).toHaveLength(1);

    const unknownModel = new OpenAiChatClient({ baseUrl: server.baseUrl, model: 'no-such-model' }, { retryDelayMs: 5 });
    await expect(unknownModel.generate(request())).rejects.toThrow(/HTTP 404 .*no-such-model.* does not exist/);
    expect(server.requests).toHaveLength(2);
    expect(unknownModel.usage.retries).toBe(0);
  });

  it('times out a slow reply, and a retry after a timeout can succeed', async () => {
    server.inject({ delayMs: 400 });
    await expect(clientOf({ timeoutMs: 100, maxRetries: 0 }).generate(request())).rejects.toThrow(
      /no answer within 100 ms \(gave up after 1 attempt\)/,
    );
    const patient = clientOf({ timeoutMs: 1_000, maxRetries: 1 });
    server.inject({ delayMs: 2_000 });
    await patient.generate(request());
    expect(patient.usage).toMatchObject({ requests: 1, retries: 1 });
  });

  it('retries a refused connection and then reports the network error', async () => {
    const closed = await OpenAiTestServer.start({ policy: model, model: MODEL });
    await closed.close();
    const client = new OpenAiChatClient(parseOpenAiSpec(closed.spec), { retryDelayMs: 5, maxRetries: 1 });
    await expect(client.generate(request())).rejects.toThrow(
      new RegExp(`POST ${closed.baseUrl}/chat/completions: network error.*gave up after 2 attempts`),
    );
  });

  it('sends the bearer key it is given', async () => {
    const guarded = await OpenAiTestServer.start({ policy: model, model: MODEL, apiKey: 'sk-test' });
    try {
      const endpoint = parseOpenAiSpec(guarded.spec);
      await expect(new OpenAiChatClient(endpoint).generate(request())).rejects.toThrow(/HTTP 401/);
      const reply = await new OpenAiChatClient(endpoint, { apiKey: 'sk-test' }).generate(request());
      expect(typeof reply.text).toBe('string');
    } finally {
      await guarded.close();
    }
  });
});

describe('an endpoint as the reader policy of the episode loop', () => {
  let pool: SandboxPool;
  beforeAll(async () => {
    pool = await SandboxPool.start({ workers: 1, warmIsolatesPerWorker: 2 });
  });
  afterAll(() => pool.close());

  it('answers leaf llm() reads through the endpoint while the policy writes the turns', async () => {
    const js = (code: string) => `\`\`\`js\n${code}\n\`\`\``;
    const policy = new ScriptedTestPolicy(tokenizer, ({ prompt: text }) =>
      text.includes('Output:') ? '<answer>done</answer>' : js('print(llm("which colour?", ctx.slice(0, 40)))'),
    );
    const client = clientOf();
    const runner = new EpisodeRunner(
      { sandbox: pool, policy, readerPolicy: new TextEndpointPolicy(client.generate, tokenizer, 1 << 20) },
      { sampling: { temperature: 0 } },
    );
    const context = 'The lamp is teal. The chair is red and the door is green.';
    const group = await runner.runGroup(
      { id: 'reader-1', question: 'Which colour is the lamp?', context, contextTokens: 15 },
      { G: 1, seed: 0 },
    );

    const [traj] = group.trajectories;
    expect(traj.status).toBe('ok');
    expect(policy.calls).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0].messages).toEqual(
      chatMessagesOf(segmentsText(renderSubcallPrompt('which colour?', context.slice(0, 40)))),
    );
    const [leaf] = traj.recursionTree.children;
    expect(leaf.kind).toBe('leaf');
    expect(client.usage.requests).toBe(1);
    expect(leaf.completionTokens).toBeGreaterThan(0);
  });

  it('refuses an extractive read: an endpoint cannot constrain its tokens, and nothing is sent', async () => {
    const before = server.requests.length;
    const reader = new TextEndpointPolicy(clientOf().generate, tokenizer, 1 << 20);
    await expect(
      reader.sample([{ prompt: tokenizer.encode('Where?'), n: 1, maxNewTokens: 4, seed: 0, spanOf: [[65]] }], {
        temperature: 0,
        topP: 1,
        topK: 0,
        stopTokens: [],
      }),
    ).rejects.toThrow(/extractive \(span-constrained\) reads need a local model policy/);
    expect(server.requests).toHaveLength(before);
  });
});
