import { malformedRequests } from '@fathom/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS } from './http/openapi';
import { createTestDatabase, startHarness, type Harness, type TestDatabase } from './test-support/harness';

let db: TestDatabase;
let h: Harness;
beforeAll(async () => {
  db = await createTestDatabase('malformed');
  h = await startHarness(db.url, { LOG_LEVEL: 'silent' });
});
afterAll(async () => {
  await h?.close();
  await db?.drop();
});

describe('malformed input on every documented route', () => {
  it('is answered below 500, and the API keeps serving', async () => {
    const asked = new Set<string>();
    for (const { operation, method, path, body } of malformedRequests(ADMIN_OPERATIONS)) {
      const res = await fetch(`${h.baseUrl}${path}`, { method, headers: { 'content-type': 'application/json' }, body });
      const text = await res.text();
      expect(res.status, `${method} ${path} ${String(body).slice(0, 80)}: ${text}`).toBeLessThan(500);
      asked.add(`${operation.method} ${operation.path}`);
    }
    expect(asked.size).toBe(ADMIN_OPERATIONS.length);
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
