import { createHash } from 'node:crypto';
import { OpenEnvSandbox } from '@fathom/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  EnvGrpcClient,
  longDocument,
  metricSum,
  post,
  startHarness,
  WsClient,
  type Harness,
} from '../test-support/harness';

/**
 * Documents kept by their SHA-256: a reset that sends `context` with `context_sha256` leaves the document on the
 * replica, and later resets name it by the hash alone, so a group's episodes send a long document once.
 */

const CONTEXT = longDocument(50_000, 'Note: the lamp is teal.', 0.4);
const SHA256 = createHash('sha256').update(CONTEXT, 'utf8').digest('hex');
const QUESTION = 'What colour is the lamp?';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const documents = (outcome: string, harness = h) =>
  metricSum(harness.baseUrl, 'fathom_env_documents_total', { outcome });

describe('documents named by their SHA-256 (context_sha256)', () => {
  it('a reset with the document keeps it; later resets over any transport name it by its hash alone', async () => {
    const stored = await documents('stored');
    const hits = await documents('hit');
    const first = await post(h.baseUrl, '/reset', { context: CONTEXT, context_sha256: SHA256, question: QUESTION });
    expect(first.status).toBe(200);
    expect(first.body.observation).toMatchObject({ context_sha256: SHA256, context_chars: CONTEXT.length });

    const again = await post(h.baseUrl, '/reset', { context_sha256: SHA256, question: QUESTION, answer: 'teal' });
    expect(again.body.observation).toMatchObject({ context_sha256: SHA256, context_chars: CONTEXT.length });
    const step = await post(h.baseUrl, '/step', {
      episode_id: again.body.observation.episode_id,
      action: { code: 'print(ctx.match(/lamp is (\\w+)/)[1])' },
    });
    expect(step.body.observation.stdout.trim()).toBe('teal');

    const ws = await WsClient.connect(h.wsUrl);
    try {
      const reply = await ws.request({ type: 'reset', data: { context_sha256: SHA256, task_prompt: QUESTION } });
      expect(reply.data.observation).toMatchObject({ context_sha256: SHA256, context_chars: CONTEXT.length });
    } finally {
      await ws.close();
    }
    const client = new EnvGrpcClient(h.grpcAddress);
    try {
      const reply = await client.call('Reset', { context_sha256: SHA256, question: QUESTION });
      expect(reply.observation).toMatchObject({ context_sha256: SHA256, context_chars: CONTEXT.length });
    } finally {
      client.close();
    }
    expect(await documents('stored')).toBe(stored + 1);
    expect(await documents('hit')).toBe(hits + 3);
    // Without a hash nothing is kept or echoed.
    const plain = await post(h.baseUrl, '/reset', { context: 'A short note.', question: QUESTION });
    expect(plain.body.observation.context_sha256).toBeNull();
  });

  it('bad input: a hash that is not the document’s, a hash not kept, a malformed hash, a hash with a dataset task', async () => {
    const wrong = await post(h.baseUrl, '/reset', { context: 'The van is crimson.', context_sha256: SHA256 });
    expect(wrong.status).toBe(422);
    expect(JSON.stringify(wrong.body)).toContain('context_sha256 is not the SHA-256 of the context');

    const unknown = await post(h.baseUrl, '/reset', { context_sha256: 'f'.repeat(64) });
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(unknown.body)).toContain('send the context with it');
    expect(await documents('miss')).toBeGreaterThanOrEqual(1);

    const malformed = await post(h.baseUrl, '/reset', { context: 'x', context_sha256: 'ABC' });
    expect(malformed.status).toBe(422);
    expect(JSON.stringify(malformed.body)).toContain('64 lowercase hex digits');

    const mixed = await post(h.baseUrl, '/reset', { context_sha256: SHA256, task_id: 't1' });
    expect(mixed.status).toBe(422);
    expect(JSON.stringify(mixed.body)).toContain('not both');
  });
});

describe('a client that names a document the replica no longer keeps', () => {
  it('is told TASK_NOT_FOUND and sends the document again (OpenEnvSandbox does so by itself)', async () => {
    // 1 MB of UTF-16 text: one 300K-character document fits, a second one evicts the first.
    const small = await startHarness({ DOCUMENT_CACHE_MB: '1' });
    const sandbox = new OpenEnvSandbox(small.wsUrl);
    try {
      const [a, b] = ['a', 'b'].map((letter) => `${letter} `.repeat(150_000));
      const length = async (ctx: string) => {
        const episode = await sandbox.openEpisode({ ctx, question: 'How long is it?' });
        const result = await episode.run('print(ctx.length)');
        await episode.close();
        return result.stdout.trim();
      };
      for (const ctx of [a, a, b, a]) expect(await length(ctx)).toBe(String(ctx.length));
      const outcomes = await Promise.all(['stored', 'hit', 'miss'].map((o) => documents(o, small)));
      // a stored, a named (hit), b stored (a evicted), a named (miss), then a sent and stored again.
      expect(outcomes).toEqual([3, 1, 1]);
      // A document larger than the whole cache is not echoed: the client keeps sending it.
      const huge = await post(small.baseUrl, '/reset', {
        context: 'c'.repeat(600_000),
        context_sha256: createHash('sha256').update('c'.repeat(600_000), 'utf8').digest('hex'),
      });
      expect(huge.body.observation.context_sha256).toBeNull();
    } finally {
      await sandbox.close();
      await small.close();
    }
  }, 60_000);
});
