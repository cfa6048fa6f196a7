import {
  applyMigrations,
  createPrismaClient,
  dropDatabase,
  ensureDatabase,
  type PrismaClient,
} from '@fathom/persistence';
import { deleteQueuePrefix } from '@fathom/queue/testing';
import { randomUUID } from 'node:crypto';
import { startAdminApi, type RunningAdminApi } from '../bootstrap';
import { loadConfig } from '../config';

/** A JSON reply as tests see it: deliberately untyped, since tests assert on its shape field by field. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

const POSTGRES = process.env.FATHOM_TEST_POSTGRES ?? 'postgresql://postgres@127.0.0.1:5432';
export const TEST_REDIS_URL = process.env.FATHOM_TEST_REDIS ?? 'redis://127.0.0.1:6379';

/** A throwaway Postgres database with the migrations applied, and a Prisma client on it. */
export interface TestDatabase {
  url: string;
  prisma: PrismaClient;
  drop(): Promise<void>;
}

export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `fathom_test_admin_${label}_${process.pid}`;
  const url = `${POSTGRES}/${name}`;
  await dropDatabase(url);
  await ensureDatabase(url);
  await applyMigrations(url);
  const prisma = createPrismaClient(url);
  return {
    url,
    prisma,
    drop: async () => {
      await prisma.$disconnect();
      await dropDatabase(url);
    },
  };
}

export interface Harness {
  api: RunningAdminApi;
  baseUrl: string;
  queuePrefix: string;
  logs: string[];
  close(): Promise<void>;
}

/** Starts the admin API on a free port over `databaseUrl` and the machine's Redis, under a fresh queue prefix. */
export async function startHarness(databaseUrl: string, env: Record<string, string> = {}): Promise<Harness> {
  const queuePrefix = `fathom-test-admin-${process.pid}-${randomUUID().slice(0, 8)}`;
  const config = loadConfig({
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: queuePrefix,
    LOG_LEVEL: 'info',
    ...env,
  });
  const logs: string[] = [];
  const api = await startAdminApi(config, { logWrite: (line) => logs.push(line) });
  return {
    api,
    baseUrl: `http://127.0.0.1:${api.port}`,
    queuePrefix,
    logs,
    close: async () => {
      await api.close();
      await deleteQueuePrefix(queuePrefix, TEST_REDIS_URL);
    },
  };
}

export interface Reply {
  status: number;
  body: Json;
  headers: Headers;
}

/** One HTTP request; `body` is sent as JSON unless it is already a string (sent raw). */
export async function request(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined) headers['content-type'] ??= 'application/json';
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text.length > 0 ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (HTML, metrics): keep the text.
  }
  return { status: res.status, body, headers: res.headers };
}
