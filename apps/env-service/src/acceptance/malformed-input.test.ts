import { malformedRequests } from '@fathom/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV_OPERATIONS } from '../http/schemas';
import { startHarness, type Harness } from '../test-support/harness';

const TOKEN = 'test-token-0123456789abcdef';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ API_TOKEN: TOKEN, FATHOM_MODEL_ID: 'fathom-test', MAX_BODY_BYTES: String(200_000) });
});
afterAll(() => h.close());

describe('malformed input on every documented route', () => {
  // A body key named like an Object.prototype member once answered /v1/chat/completions with 500.
  it('is answered below 500, and the service keeps serving', async () => {
    const asked = new Set<string>();
    for (const { operation, method, path, body } of malformedRequests(ENV_OPERATIONS)) {
      const res = await fetch(`${h.baseUrl}${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        body,
      });
      const text = await res.text();
      expect(res.status, `${method} ${path} ${String(body).slice(0, 80)}: ${text}`).toBeLessThan(500);
      asked.add(`${operation.method} ${operation.path}`);
    }
    expect(asked.size).toBe(ENV_OPERATIONS.length);
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
