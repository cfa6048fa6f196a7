import { RunRepository } from '@fathom/persistence';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, request, startHarness, type Harness, type TestDatabase } from './test-support/harness';

/**
 * Property: whatever strings and bodies a client sends to any admin route, the API answers below 500 and stays up.
 * It drives the real server over HTTP against a real Postgres and Redis, with text that Postgres refuses (NUL, lone
 * surrogates), percent-encoded junk that is not UTF-8, and arbitrary JSON. Bounded: FUZZ_RUNS requests, < 60 s.
 */
const FUZZ_RUNS = 300;

let db: TestDatabase;
let h: Harness;
const EXISTING_RUN = 'run-fuzz-existing';

beforeAll(async () => {
  db = await createTestDatabase('fuzz');
  const runs = new RunRepository(db.prisma);
  await runs.create({ id: EXISTING_RUN, name: 'fuzz', config: { name: 'fuzz' } });
  await runs.setStatus(EXISTING_RUN, 'running');
  h = await startHarness(db.url, { LOG_LEVEL: 'warn' });
});

afterAll(async () => {
  await h?.close();
  await db?.drop();
});

/** Any UTF-16 code unit, lone surrogates and NUL included, with the nasty ones often. */
const codeUnit = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', '\uFEFF') },
  { weight: 1, arbitrary: fc.constantFrom('/', '?', '#', '%', '.', '..', ':', '"', '\\', ' ', '\n') },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
  { weight: 3, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
const nastyString = fc.string({ unit: codeUnit, maxLength: 40 });

/** Percent-encodes every code unit outside [A-Za-z0-9_.~-]; a lone surrogate becomes its (invalid) 3-byte form. */
function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    if (/^[A-Za-z0-9_.~-]$/.test(char)) {
      out += char;
      continue;
    }
    const unit = char.charCodeAt(0);
    const bytes =
      char.length === 1 && unit >= 0xd800 && unit <= 0xdfff
        ? [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)]
        : [...Buffer.from(char, 'utf8')];
    out += bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  }
  return out;
}

/** A path segment as sent on the wire. */
const segment = fc.oneof(
  nastyString.map(percentEncode),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16)}`).join('')),
  fc.constantFrom(
    EXISTING_RUN,
    'run-nope',
    '%00',
    '%ff%fe',
    '%',
    '%zz',
    '%2e%2e',
    '%2F',
    '1',
    '9'.repeat(25),
    'a'.repeat(300),
  ),
  fc.string({ maxLength: 20 }).map(percentEncode),
);

const QUERY_KEYS = ['status', 'limit', 'fromStep', 'step', 'taskType', 'minReward', 'maxReward', 'cursor'];
/** A query string of known and arbitrary keys with arbitrary (already encoded) values. */
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_KEYS), nastyString.map(percentEncode)), segment), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`));

/** A JSON body: run-config-shaped with arbitrary leaves, anything JSON, or text that is not JSON at all. */
const leaf = fc.oneof(nastyString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(1e308));
const body = fc.oneof(
  fc
    .record(
      {
        name: leaf,
        steps: leaf,
        batchSize: leaf,
        seed: leaf,
        checkpoint: leaf,
        runId: leaf,
        split: leaf,
        limit: leaf,
        model: fc.record({ checkpoint: leaf }, { requiredKeys: [] }),
        data: fc.record({ trainFile: leaf, trainSize: leaf }, { requiredKeys: [] }),
        grpo: fc.record({ groupSize: leaf, beta: leaf }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 }).map((value) => JSON.stringify(value)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  nastyString,
);

type Route = { method: 'GET' | 'POST'; path: (s: string) => string; body?: boolean };
const ROUTES: Route[] = [
  { method: 'GET', path: () => '/runs' },
  { method: 'POST', path: () => '/runs', body: true },
  { method: 'GET', path: (s) => `/runs/${s}` },
  { method: 'GET', path: (s) => `/runs/${s}/steps` },
  { method: 'GET', path: (s) => `/runs/${s}/series` },
  { method: 'GET', path: (s) => `/runs/${s}/episodes` },
  { method: 'POST', path: (s) => `/runs/${s}/stop`, body: true },
  { method: 'POST', path: (s) => `/runs/${s}/resume`, body: true },
  { method: 'GET', path: (s) => `/episodes/${s}` },
  { method: 'GET', path: () => '/evals' },
  { method: 'POST', path: () => '/evals', body: true },
  { method: 'GET', path: (s) => `/evals/${s}` },
  { method: 'GET', path: () => '/queues' },
  { method: 'GET', path: (s) => `/queues/${s}/failed` },
  { method: 'GET', path: () => '/health' },
  { method: 'GET', path: () => '/metrics' },
  { method: 'GET', path: () => '/docs' },
  { method: 'GET', path: () => '/docs/openapi.json' },
  { method: 'GET', path: (s) => `/dashboard/${s}` },
  { method: 'GET', path: (s) => `/${s}` },
];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
];

const requestArb = fc.record({
  route: fc.constantFrom(...ROUTES),
  segment,
  query,
  body,
  contentType: fc.oneof({ weight: 4, arbitrary: fc.constant(CONTENT_TYPES[0]!) }, fc.constantFrom(...CONTENT_TYPES)),
});

describe('admin API fuzz (fast-check)', () => {
  it(`answers ${FUZZ_RUNS} arbitrary requests over every route below 500 and stays up`, async () => {
    const started = performance.now();
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async ({ route, segment: s, query: q, body: b, contentType }) => {
        const path = `${route.path(s)}${q}`;
        const reply = await request(h.baseUrl, route.method, path, {
          body: route.body ? b : undefined,
          headers: route.body ? { 'content-type': contentType } : {},
        });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        expect(reply.status, `${route.method} ${path} → ${reply.status} ${JSON.stringify(reply.body)}`).toBeLessThan(
          500,
        );
      }),
      { numRuns: FUZZ_RUNS },
    );
    expect(performance.now() - started).toBeLessThan(60_000);
    expect((await request(h.baseUrl, 'GET', '/health')).status).toBe(200);
    // Every refusal was a client error; nothing reached the "unhandled error" log of a 500.
    expect(h.logs.filter((line) => JSON.parse(line).level === 'error')).toEqual([]);
    expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
    expect(statuses.get(400)).toBeGreaterThan(0);
  });
});
