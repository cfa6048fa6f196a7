import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Infrastructure that is unreachable for a moment (Postgres restarting, Redis failing over, a dropped socket) is
 * not a failure of the job: the consumer waits it out, within a bounded time, instead of spending the job's
 * attempts in seconds and dead-lettering it.
 */

/** Node socket errors of a peer that is down or unreachable. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * Prisma's "database unreachable" codes: P1001 cannot reach, P1002 timed out, P1008 operation timed out, P1017
 * server closed the connection.
 */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017']);

/** Postgres SQLSTATEs of an unavailable server: connection exceptions (class 08), shutdowns, too many clients. */
const SQLSTATE = /^(08\d{3}|57P0[1-3]|53300)$/;

/** The driver adapter's kinds for the same (Prisma 7 with @prisma/adapter-pg). */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);

/** node-postgres and ioredis messages of a connection lost mid-request. */
const MESSAGES = [/Connection terminated/i, /Connection is closed/i, /connect ECONNREFUSED/i];

function own(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function transientHere(error: unknown): boolean {
  const code = own(error, 'code');
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || PRISMA_CODES.has(code) || SQLSTATE.test(code)))
    return true;
  if (own(error, 'name') === 'MaxRetriesPerRequestError') return true;
  const adapterCause = own(own(own(error, 'meta'), 'driverAdapterError'), 'cause');
  const kind = own(adapterCause, 'kind') ?? own(error, 'kind');
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  const message = own(error, 'message');
  return typeof message === 'string' && MESSAGES.some((m) => m.test(message));
}

/** Whether `error` (or any error in its `cause` chain or an AggregateError's list) says infrastructure is down. */
export function isTransientInfraError(error: unknown, depth = 0): boolean {
  if (error === null || error === undefined || depth > 8) return false;
  if (transientHere(error)) return true;
  const nested = own(error, 'errors');
  if (Array.isArray(nested) && nested.some((e) => isTransientInfraError(e, depth + 1))) return true;
  return isTransientInfraError(own(error, 'cause'), depth + 1);
}

/** Waits between tries: 500 ms doubling to 10 s. */
export function transientBackoffMs(tries: number): number {
  return Math.min(10_000, 500 * 2 ** Math.max(0, tries - 1));
}

export interface OutageWait {
  /** The longest total wait; past it the outage's error is thrown. */
  budgetMs: number;
  /** Stops the waiting (the error is thrown at once). */
  signal?: AbortSignal;
  /** Called before each wait, e.g. to log and count it. */
  onWait?: (wait: { reason: string; try: number; wait_ms: number; waited_ms: number; budget_ms: number }) => void;
}

/**
 * Runs `run`; while it fails because infrastructure is unreachable (`isTransientInfraError`), waits (500 ms doubling
 * to 10 s) and runs it again, for at most `budgetMs`. Any other error is thrown at once. `run` must be safe to repeat.
 */
export async function waitOutOutages<T>(run: () => Promise<T>, options: OutageWait): Promise<T> {
  const { budgetMs, signal } = options;
  const started = performance.now();
  for (let tries = 1; ; tries++) {
    try {
      return await run();
    } catch (error) {
      const waitMs = transientBackoffMs(tries);
      const waited = performance.now() - started;
      if (signal?.aborted || !isTransientInfraError(error) || waited + waitMs > budgetMs) throw error;
      options.onWait?.({
        reason: error instanceof Error ? error.message : String(error),
        try: tries,
        wait_ms: waitMs,
        waited_ms: Math.round(waited),
        budget_ms: budgetMs,
      });
      await sleep(waitMs, undefined, { signal }).catch(() => undefined);
      if (signal?.aborted) throw error;
    }
  }
}
