import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_OPERATIONS } from '../http/schemas';
import { startHarness, type Harness } from '../test-support/harness';

// Every documented route, asked with malformed bodies, path ids and queries: each answer must be a client error or
// a success, never a 5xx, and the service must keep serving. A body key named like an Object.prototype member once
// answered /v1/chat/completions with 500.
const TOKEN = 'test-token-0123456789abcdef';
const BODIES = [
  '',
  '{',
  'null',
  '[]',
  '"text"',
  '1e999',
  '{"__proto__": {"polluted": 1}}',
  '{"constructor": {"prototype": {"polluted": 1}}}',
  '{"toString": 1, "hasOwnProperty": 2, "valueOf": 3}',
  `{"deep": ${'['.repeat(5_000)}${']'.repeat(5_000)}}`,
  JSON.stringify({ name: 'x'.repeat(50_000), context: '\u0000\ud800', seed: -1.5, task_id: { $ne: 1 } }),
  JSON.stringify({ action: { code: 5, answer: null }, episode_id: [] }),
  JSON.stringify({ messages: [{ role: 'user', content: { type: 'file' } }], max_tokens: 1e308 }),
  JSON.stringify({ jsonrpc: '2.0', id: {}, method: 'tools/call', params: { name: '__proto__', arguments: 5 } }),
];
const IDS = ['x', '%00', '..%2F..%2Fetc', 'a'.repeat(2_000), '%E0%A4%A'];
const QUERIES = ['', '?limit=-5&offset=abc&x[]=1&y=%ZZ'];

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ API_TOKEN: TOKEN, FATHOM_MODEL_ID: 'fathom-test', MAX_BODY_BYTES: String(200_000) });
});
afterAll(() => h.close());

describe('malformed input on every documented route', () => {
  it('is answered with a 4xx (or a success), never a 5xx, and the service keeps serving', async () => {
    const served: string[] = [];
    for (const operation of ENV_OPERATIONS) {
      const paths = operation.path.includes('{')
        ? IDS.map((id) => operation.path.replace(/\{[^}]+\}/g, id))
        : [operation.path];
      for (const path of paths)
        for (const query of QUERIES)
          for (const body of operation.method === 'get' ? [undefined] : BODIES) {
            const res = await fetch(`${h.baseUrl}${path}${query}`, {
              method: operation.method.toUpperCase(),
              headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
              body,
            });
            const text = await res.text();
            expect(
              res.status,
              `${operation.method} ${path}${query} ${String(body).slice(0, 80)}: ${text}`,
            ).toBeLessThan(500);
            served.push(`${operation.method} ${operation.path}`);
          }
    }
    expect(new Set(served).size).toBe(ENV_OPERATIONS.length);
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
