import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatMessagesOf, IM_END, renderPrompt, scriptText, segmentsText } from '@fathom/rlm';
import type { GenerateRequest } from '../inference/inference.client';
import { checkEnvReply, longDocument, startHarness, WsClient, type Harness, type Json } from '../test-support/harness';

const { turnsSoFar, lastOutput } = scriptText;

/**
 * The OpenAI-compatible API over a real HTTP server: each completion runs a whole RLM episode in the service's
 * sandbox, with the scripted inference server (TEST DOUBLE) as the model behind every turn and llm() call.
 */

const TOKEN = 'test-token-0123456789abcdef';
const NEEDLE = 'Memo: the vault code is 4417.';
const DOCUMENT = longDocument(50_000, NEEDLE, 0.61);
const QUESTION = 'What is the vault code?';
const SEARCH = 'const i = ctx.indexOf("vault code"); print(llm("What is the vault code?", ctx.slice(i - 10, i + 40)));';

/** The model: a leaf read answers from its chunk; the root searches, asks llm(), then answers with what it printed. */
function model(request: GenerateRequest): string {
  if (request.prompt.includes('Answer the question about the text briefly.'))
    return /code is (\d+)/.exec(request.prompt)?.[1] ?? 'unknown';
  return turnsSoFar(request.prompt) === 0
    ? `Searching.\n\`\`\`js\n${SEARCH}\n\`\`\``
    : `<answer>${lastOutput(request.prompt)}</answer>`;
}

async function call(
  h: Harness,
  path: string,
  init: { body?: unknown; raw?: string; token?: string | null } = {},
): Promise<{ status: number; body: Json; text: string; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const token = init.token === undefined ? TOKEN : init.token;
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const hasBody = init.body !== undefined || init.raw !== undefined;
  const res = await fetch(`${h.baseUrl}${path}`, {
    method: hasBody ? 'POST' : 'GET',
    headers,
    body: init.raw ?? (hasBody ? JSON.stringify(init.body) : undefined),
  });
  const text = await res.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {
    // an event stream
  }
  checkEnvReply(hasBody ? 'POST' : 'GET', path, res.status, res.headers.get('content-type') ?? '', body);
  return { status: res.status, body, text, headers: res.headers };
}

const chat = (extra: object = {}) => ({
  model: 'fathom-test',
  messages: [
    { role: 'system', content: 'You are helpful.' },
    { role: 'user', content: DOCUMENT },
    { role: 'user', content: QUESTION },
  ],
  ...extra,
});

let h: Harness;
beforeAll(async () => {
  h = await startHarness(
    {
      API_TOKEN: TOKEN,
      FATHOM_MODEL_ID: 'fathom-test',
      MAX_DOCUMENT_BYTES: String(300_000),
      MAX_BODY_BYTES: String(100_000),
    },
    model,
  );
});
afterAll(() => h.close());

describe('POST /v1/chat/completions', () => {
  it('runs the episode over an earlier user message and answers with the trace', async () => {
    const res = await call(h, '/v1/chat/completions', { body: chat({ seed: 5, temperature: 0 }) });
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'fathom-test',
      choices: [{ index: 0, message: { role: 'assistant', content: '4417' }, finish_reason: 'stop' }],
    });
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.completion_tokens).toBeGreaterThan(body.fathom.tokens.completion);
    expect(body.fathom).toMatchObject({ status: 'ok', stop_reason: 'answer' });
    expect(body.fathom.turns.map((t: Json) => [t.action, t.observation])).toEqual([
      ['code', '4417'],
      ['answer', null],
    ]);
    expect(body.fathom.recursion_tree).toMatchObject({ kind: 'root', answer: '4417', turns: 2 });
    expect(body.fathom.recursion_tree.children).toMatchObject([{ kind: 'leaf', depth: 1, answer: '4417' }]);
    // The document reached the sandbox whole: the root prompt gives its size, and the code found the needle in it.
    const rootPrompt = h.inference.requests.find((r) => r.prompt.includes(`Question: ${QUESTION}`))!.prompt;
    expect(rootPrompt).toContain(`ctx: ${DOCUMENT.length} characters`);
  });

  it('streams one chunk per turn, then the answer, the finish and [DONE]', async () => {
    const file = `data:text/plain;base64,${Buffer.from(DOCUMENT).toString('base64')}`;
    const res = await call(h, '/v1/chat/completions', {
      body: {
        model: 'fathom-test',
        stream: true,
        stream_options: { include_usage: true },
        messages: [
          {
            role: 'user',
            content: [
              { type: 'file', file: { filename: 'ledger.txt', file_data: file } },
              { type: 'text', text: QUESTION },
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = res.text
      .split('\n\n')
      .filter((e) => e.length > 0)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const data = events.slice(0, -1).map((e) => JSON.parse(e));
    expect(data.every((d) => d.object === 'chat.completion.chunk' && d.id === data[0].id)).toBe(true);
    expect(data[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(data.slice(1, 3).map((d) => [d.fathom.turn.index, d.fathom.turn.action, d.choices[0].delta])).toEqual([
      [0, 'code', {}],
      [1, 'answer', {}],
    ]);
    expect(data[1].fathom.turn.observation).toBe('4417');
    expect(data[3].choices[0]).toMatchObject({ delta: { content: '4417' }, finish_reason: null });
    expect(data[4].choices[0]).toMatchObject({ delta: {}, finish_reason: 'stop' });
    expect(data[4].fathom).toMatchObject({ status: 'ok', stop_reason: 'answer', recursion_tree: { kind: 'root' } });
    expect(data[5]).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } });
    expect(data).toHaveLength(6);
  });

  it('honours stop: a string or up to 4 strings end the answer before the first one it holds', async () => {
    const one = await call(h, '/v1/chat/completions', { body: chat({ stop: '17' }) });
    expect(one.status).toBe(200);
    expect(one.body.choices[0]).toMatchObject({ message: { content: '44' }, finish_reason: 'stop' });
    const many = await call(h, '/v1/chat/completions', { body: chat({ stop: ['x', '41', '7'] }) });
    expect(many.body.choices[0].message.content).toBe('4');
    const five = await call(h, '/v1/chat/completions', { body: chat({ stop: ['a', 'b', 'c', 'd', 'e'] }) });
    expect(five.status).toBe(400);
    expect(five.body.error).toMatchObject({ code: 'invalid_request', param: 'stop' });
  });

  it("writes one turn of a conversation in FATHOM's own prompt, for a client that runs the episode itself", async () => {
    const prompt = segmentsText(renderPrompt({ question: QUESTION, context: DOCUMENT, contextTokens: 12_500 }));
    const seen = h.inference.requests.length;
    const body = { model: 'fathom-test', messages: chatMessagesOf(prompt), max_tokens: 200, stop: [IM_END], seed: 4 };
    const res = await call(h, '/v1/chat/completions', { body });
    expect(res.status).toBe(200);
    expect(res.body.choices[0]).toMatchObject({ message: { content: model({ prompt } as GenerateRequest) } });
    expect(res.body.fathom).toBeUndefined();
    expect(res.body.usage.completion_tokens).toBeGreaterThan(0);
    // One generation of exactly the client's prompt, with its sampling: no episode ran here.
    expect(h.inference.requests.slice(seen)).toEqual([
      expect.objectContaining({ prompt, max_tokens: 200, stop: [IM_END], seed: 4, depth: 0 }),
    ]);
    const streamed = await call(h, '/v1/chat/completions', { body: { ...body, stream: true } });
    expect(streamed.status).toBe(400);
    expect(streamed.body.error).toMatchObject({ code: 'unsupported_parameter', param: 'stream' });
  });

  it('answers a document over MAX_DOCUMENT_BYTES with 413 naming the limit, and an over-large body with 413', async () => {
    const big = longDocument(80_000, NEEDLE);
    const res = await call(h, '/v1/chat/completions', {
      body: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: big },
              { type: 'text', text: QUESTION },
            ],
          },
        ],
      },
    });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'document_too_large',
      param: 'messages[0].content[0]',
    });
    expect(res.body.error.message).toMatch(/over the limit of 300000 bytes \(MAX_DOCUMENT_BYTES\)/);
    const huge = await call(h, '/v1/chat/completions', {
      body: chat({ messages: [{ role: 'user', content: 'x'.repeat(700_000) }] }),
    });
    expect(huge.status).toBe(413);
    expect(huge.body.error).toMatchObject({ code: 'request_too_large', type: 'invalid_request_error' });
  });

  it('refuses a request without a question, without a document, or with unsupported parameters (400)', async () => {
    const cases: [object, string, RegExp][] = [
      [
        {
          messages: [
            { role: 'user', content: DOCUMENT },
            { role: 'assistant', content: 'ok' },
          ],
        },
        'messages[1].role',
        /last message must be the user's question/,
      ],
      [{ messages: [{ role: 'user', content: QUESTION }] }, 'messages', /no document/],
      [
        {
          messages: [
            { role: 'user', content: 'a' },
            { role: 'user', content: 'b' },
            { role: 'user', content: QUESTION },
          ],
        },
        'messages',
        /ambiguous document: 2 .*messages\[0\]\.content, messages\[1\]\.content/,
      ],
      [
        {
          messages: [
            { role: 'user', content: DOCUMENT },
            { role: 'user', content: '  ' },
          ],
        },
        'messages',
        /question .* is empty/,
      ],
      [chat({ n: 2 }), 'n', /n=2 is not supported/],
      [chat({ tools: [{ type: 'function', function: { name: 'f' } }] }), 'tools', /not supported/],
      [chat({ frobnicate: true }), 'frobnicate', /unrecognized request argument: frobnicate/],
      [chat({ temperature: 7 }), 'temperature', /temperature/],
    ];
    for (const [body, param, message] of cases) {
      const res = await call(h, '/v1/chat/completions', { body });
      expect(res.status, param).toBe(400);
      expect(res.body.error.param).toBe(param);
      expect(res.body.error.type).toBe('invalid_request_error');
      expect(res.body.error.message).toMatch(message);
    }
    const broken = await call(h, '/v1/chat/completions', { raw: '{"messages": [' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('invalid_json');
    // A key JSON.parse makes an own "__proto__" once answered 500 ("unsupported is not a function").
    const proto = await call(h, '/v1/chat/completions', {
      raw: JSON.stringify(chat()).replace(/^\{/, '{"__proto__": {"x": 1}, '),
    });
    expect(proto.status).toBe(400);
    expect(proto.body.error).toMatchObject({ param: '__proto__', message: 'unrecognized request argument: __proto__' });
  });

  it('answers another model id with 404', async () => {
    const res = await call(h, '/v1/chat/completions', { body: chat({ model: 'gpt-4o' }) });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'model_not_found', param: 'model' });
  });

  it('needs the bearer token (401) when one is configured; the OpenEnv routes do not', async () => {
    for (const token of [null, 'wrong-token-0123456789']) {
      const res = await call(h, '/v1/chat/completions', { body: chat(), token });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
    expect((await call(h, '/v1/models', { token: null })).status).toBe(401);
    expect((await call(h, '/health', { token: null })).status).toBe(200);
  });
});

describe('GET /v1/models', () => {
  it('lists the served model', async () => {
    const res = await call(h, '/v1/models');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      data: [{ id: 'fathom-test', object: 'model', created: 0, owned_by: 'fathom' }],
    });
    const openapi = (await call(h, '/openapi.json', { token: null })).body;
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/v1/chat/completions', '/v1/models']));
  });
});

describe('capacity', () => {
  it('counts a chat episode against MAX_CONCURRENT_ENVS: 429 when every slot is held; open without API_TOKEN', async () => {
    const small = await startHarness({ MAX_CONCURRENT_ENVS: '1' }, model);
    try {
      const session = await WsClient.connect(small.wsUrl);
      const full = await call(small, '/v1/chat/completions', { body: chat({ model: undefined }), token: null });
      expect(full.status).toBe(429);
      expect(full.body.error).toMatchObject({ type: 'rate_limit_error', code: 'capacity_reached' });
      await session.close();
      await expect.poll(() => small.service.episodes.liveCount).toBe(0);
      const served = await call(small, '/v1/chat/completions', { body: chat({ model: undefined }), token: null });
      expect(served.status).toBe(200);
      expect(served.body.choices[0].message.content).toBe('4417');
      expect(small.service.episodes.liveCount).toBe(0);
    } finally {
      await small.close();
    }
  });
});

describe('an inference endpoint with a span reader', () => {
  it("reads the episode's leaf llm() call with ReadSpan, recorded on the tree as a span read", async () => {
    // The reader answers the digits after "code is " in its chunk; the model still writes the root's turns.
    const reader = await startHarness({ API_TOKEN: TOKEN, FATHOM_MODEL_ID: 'fathom-test' }, model, (read) => {
      const at = read.chunk.indexOf('code is ') + 'code is '.length;
      return [at, at + 3];
    });
    try {
      const res = await call(reader, '/v1/chat/completions', { body: chat({ seed: 5, temperature: 0 }) });
      expect(res.status).toBe(200);
      expect(res.body.choices[0].message.content).toBe('4417');
      const [leaf] = res.body.fathom.recursion_tree.children;
      expect(leaf).toMatchObject({ kind: 'leaf', answer: '4417', read: { head: 'span', logprob: -0.5 } });
      expect(reader.inference.reads).toEqual([
        expect.objectContaining({ question: QUESTION, chunk: expect.stringContaining('code is 4417'), temperature: 0 }),
      ]);
      // The leaf was not generated: only the root's two turns were.
      expect(reader.inference.requests).toHaveLength(2);
    } finally {
      await reader.close();
    }
  });
});
