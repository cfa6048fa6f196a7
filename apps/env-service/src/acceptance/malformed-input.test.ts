import { serverErrorsOnMalformedInput } from '@fathom/contracts';
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
    const asked = await serverErrorsOnMalformedInput(h.baseUrl, ENV_OPERATIONS, { authorization: `Bearer ${TOKEN}` });
    expect(asked).toEqual({ errors: [], operationsAsked: ENV_OPERATIONS.length });
    expect((await fetch(`${h.baseUrl}/health`)).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
