import { describe, expect, it } from 'vitest';
import { chatMessagesOf, renderConversation, renderSubcallPrompt, segmentsText } from '@fathom/rlm';
import { cutAtStop, parseChatRequest, QUESTION_MAX_CHARS } from './chat-request';
import { openAiErrorBody, OpenAiError } from './openai.errors';

const LIMIT = 1_000;
const dataUrl = (text: string | Buffer, mime = 'text/plain') =>
  `data:${mime};base64,${Buffer.from(text).toString('base64')}`;
/** A body read as an episode request. */
function parse(body: object) {
  const request = parseChatRequest(body, LIMIT);
  if (request.kind !== 'episode') throw new Error(`read as a ${request.kind}`);
  return request;
}
/** The OpenAiError a body is refused with, as [code (as the client reads it), param, message]. */
function refusal(body: unknown): [string, string | null, string] {
  try {
    parseChatRequest(body, LIMIT);
  } catch (error) {
    if (error instanceof OpenAiError) return [openAiErrorBody(error).error.code, error.param, error.message];
    throw error;
  }
  throw new Error('accepted');
}

describe('parseChatRequest: where the document and the question are', () => {
  it('takes an earlier user message as the document and ignores system and assistant messages', () => {
    const request = parse({
      model: 'm',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'THE DOC' },
        { role: 'assistant', content: 'noted' },
        { role: 'user', content: [{ type: 'text', text: ' Who? ' }] },
      ],
      max_tokens: 64,
      temperature: 0.5,
      seed: 9,
      n: 1,
      top_p: 1,
      stop: '###',
      tools: [],
      user: 'u-1',
    });
    expect(request).toMatchObject({
      model: 'm',
      document: 'THE DOC',
      documentSource: 'messages[1].content',
      question: 'Who?',
      stream: false,
      maxTokens: 64,
      temperature: 0.5,
      seed: 9,
      stop: ['###'],
    });
  });

  it('takes a text part before the question, or a text file part, in the last message', () => {
    const text = parse({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'DOC' },
            { type: 'text', text: 'Q?' },
          ],
        },
      ],
    });
    expect([text.document, text.documentSource, text.question]).toEqual(['DOC', 'messages[0].content[0]', 'Q?']);
    const file = parse({
      max_completion_tokens: 32,
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Q?' },
            { type: 'file', file: { filename: 'a.md', file_data: dataUrl('é DOC', 'text/markdown') } },
          ],
        },
      ],
    });
    expect(file).toMatchObject({ document: 'é DOC', question: 'Q?', stream: true, includeUsage: true, maxTokens: 32 });
  });

  it('refuses no document, two documents, an empty one, and a question that is not one', () => {
    expect(refusal({ messages: [{ role: 'user', content: 'Q?' }] })).toEqual([
      'invalid_request',
      'messages',
      expect.stringMatching(/^no document/),
    ]);
    const two = {
      messages: [
        { role: 'user', content: 'A' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'B' },
            { type: 'text', text: 'Q?' },
          ],
        },
      ],
    };
    expect(refusal(two)[2]).toMatch(/ambiguous document: 2 .*\(messages\[0\]\.content, messages\[1\]\.content\[0\]\)/);
    expect(
      refusal({
        messages: [
          { role: 'user', content: ' \n' },
          { role: 'user', content: 'Q?' },
        ],
      }),
    ).toEqual(['invalid_request', 'messages[0].content', 'the document (messages[0].content) is empty']);
    const long = refusal({
      messages: [
        { role: 'user', content: 'DOC' },
        { role: 'user', content: 'x'.repeat(QUESTION_MAX_CHARS + 1) },
      ],
    });
    expect(long[2]).toMatch(/put the document first and the question last/);
    expect(
      refusal({ messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: dataUrl('DOC') } }] }] }),
    ).toEqual(['invalid_request', 'messages[0].content', expect.stringMatching(/has no text part/)]);
    expect(refusal({ messages: [] })[1]).toBe('messages');
    expect(refusal([1, 2])[2]).toBe('the request body must be a JSON object');
  });

  it('refuses documents over the byte limit with document_too_large', () => {
    const [code, param, message] = refusal({
      messages: [
        { role: 'user', content: 'é'.repeat(501) },
        { role: 'user', content: 'Q?' },
      ],
    });
    expect([code, param]).toEqual(['document_too_large', 'messages[0].content']);
    expect(message).toMatch(/is 1002 bytes, over the limit of 1000 bytes/);
  });

  it('refuses files that are not inline UTF-8 text', () => {
    const withFile = (file: object) => ({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file },
            { type: 'text', text: 'Q?' },
          ],
        },
      ],
    });
    expect(refusal(withFile({ file_data: dataUrl('%PDF', 'application/pdf') })).slice(0, 2)).toEqual([
      'unsupported_parameter',
      'messages[0].content[0].file.file_data',
    ]);
    expect(refusal(withFile({ file_data: dataUrl(Buffer.from([0xff, 0xfe, 0x00])) }))[2]).toMatch(/not UTF-8 text/);
    expect(refusal(withFile({ file_data: 'aGVsbG8=' }))[2]).toMatch(/must be a base64 data URL/);
    expect(refusal(withFile({ file_id: 'file-abc' }))[2]).toMatch(/file_id references are not supported/);
  });

  it('refuses parameters and message kinds it does not implement, naming them', () => {
    const base = {
      messages: [
        { role: 'user', content: 'DOC' },
        { role: 'user', content: 'Q?' },
      ],
    };
    for (const [key, value] of [
      ['n', 3],
      ['logprobs', true],
      ['response_format', { type: 'json_object' }],
      ['top_p', 0.9],
      ['tool_choice', 'auto'],
    ] as const) {
      expect(refusal({ ...base, [key]: value }).slice(0, 2)).toEqual(['unsupported_parameter', key]);
    }
    expect(
      refusal({
        ...base,
        messages: [...base.messages.slice(0, 1), { role: 'tool', content: 'r' }, base.messages[1]],
      })[1],
    ).toBe('messages[1].role');
    const image = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'x' } },
            { type: 'text', text: 'Q?' },
          ],
        },
      ],
    };
    expect(refusal(image)).toEqual([
      'unsupported_parameter',
      'messages[0].content[0].type',
      expect.stringMatching(/"image_url" part/),
    ]);
    expect(refusal({ ...base, max_tokens: 0 })).toEqual(['invalid_request', 'max_tokens', expect.any(String)]);
  });

  it('refuses a key named like a member of Object.prototype as an unrecognized argument', () => {
    for (const key of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const body: unknown = JSON.parse(`{"messages": [{"role": "user", "content": "Q?"}], "${key}": {"x": 1}}`);
      expect(refusal(body)).toEqual(['unsupported_parameter', key, `unrecognized request argument: ${key}`]);
    }
  });
});

describe('parseChatRequest: stop', () => {
  const base = {
    messages: [
      { role: 'user', content: 'DOC' },
      { role: 'user', content: 'Q?' },
    ],
  };

  it('takes a string or up to 4 strings, as OpenAI does', () => {
    expect(parse({ ...base }).stop).toEqual([]);
    expect(parse({ ...base, stop: null }).stop).toEqual([]);
    expect(parse({ ...base, stop: '\n' }).stop).toEqual(['\n']);
    expect(parse({ ...base, stop: ['a', 'b', 'c', 'd'] }).stop).toEqual(['a', 'b', 'c', 'd']);
    expect(refusal({ ...base, stop: ['a', 'b', 'c', 'd', 'e'] })).toEqual([
      'invalid_request',
      'stop',
      'stop: must be a non-empty string or an array of at most 4 non-empty strings',
    ]);
    expect(refusal({ ...base, stop: '' }).slice(0, 2)).toEqual(['invalid_request', 'stop']);
  });

  it('cuts a text before the earliest stop string it holds', () => {
    expect(cutAtStop('4417 and more.\nNext', ['\n', ' and'])).toBe('4417');
    expect(cutAtStop('4417', ['\n'])).toBe('4417');
    expect(cutAtStop('4417', [])).toBe('4417');
  });
});

describe('parseChatRequest: a turn of a FATHOM conversation', () => {
  const task = { question: 'What is the vault code?', context: 'The vault code is 4417.', contextTokens: 6 };

  it("renders FATHOM's own prompts back to the ChatML they came from, for either style and a sub-call", () => {
    const prompts = [
      segmentsText(renderConversation(task, [], { system: 'full', previewChars: 10 })),
      segmentsText(
        renderConversation(task, [{ completion: '```js\nprint(1)\n```', observation: '1' }], {
          system: 'compact',
          previewChars: 10,
        }),
      ),
      segmentsText(renderSubcallPrompt('What is the code?', 'The code is 7.')),
    ];
    for (const prompt of prompts) {
      const request = parseChatRequest({ messages: chatMessagesOf(prompt), stop: ['<|im_end|>'], seed: 3 }, LIMIT);
      expect(request).toMatchObject({ kind: 'turn', prompt, stop: ['<|im_end|>'], seed: 3 });
    }
  });

  it('reads any other system prompt as an episode request, and refuses a FATHOM turn that is not text', () => {
    const [system, user] = chatMessagesOf(segmentsText(renderConversation(task, [])));
    const episode = { messages: [{ role: 'system', content: 'be brief' }, { role: 'user', content: 'DOC' }, user] };
    expect(parseChatRequest(episode, LIMIT).kind).toBe('episode');
    expect(refusal({ messages: [system, { role: 'user', content: [{ type: 'text', text: 'Q?' }] }] })).toEqual([
      'invalid_request',
      'messages[1].content',
      'messages[1].content must be a string in a FATHOM turn',
    ]);
    expect(refusal({ messages: [system, user, { role: 'assistant', content: 'x' }] })[1]).toBe('messages[2].role');
  });
});
