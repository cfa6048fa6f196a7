import { serverErrorsOnMalformedInput } from '@fathom/contracts';
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
    const asked = await serverErrorsOnMalformedInput(h.baseUrl, ADMIN_OPERATIONS);
    expect(asked).toEqual({ errors: [], operationsAsked: ADMIN_OPERATIONS.length });
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
