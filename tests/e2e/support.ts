import { readFileSync } from 'node:fs';
import { applyMigrations, dropDatabase, ensureDatabase, type PrismaClient, type RunStatus } from '@fathom/persistence';
import { expect } from 'vitest';
import type { Stack } from '../../scripts/stack';

/** A fresh database with the migrations applied (an earlier run's leftovers dropped first). */
export async function freshDatabase(databaseUrl: string): Promise<void> {
  await dropDatabase(databaseUrl);
  await ensureDatabase(databaseUrl);
  await applyMigrations(databaseUrl);
}

/**
 * Polls `probe` every 250 ms until it returns a value; past `timeoutMs`, throws naming `what`, with the last log
 * lines of every service of `stack` (when given) so a hang says where.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  stack?: Stack,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) {
      const tails = (stack?.services ?? []).map((s) => `--- ${s.name}\n${s.tail().slice(-8).join('\n')}`).join('\n');
      throw new Error(`timed out waiting for ${what}\n${tails}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Deep equality with numbers compared to a relative tolerance (float noise between processes). */
export function expectClose(actual: unknown, expected: unknown, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = 1e-5 * Math.max(1, Math.abs(expected));
    if (Math.abs(actual - expected) > tolerance) throw new Error(`${path}: ${actual} differs from ${expected}`);
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(actual, path).toBeTypeOf('object');
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    expect(Object.keys(a).sort(), path).toEqual(Object.keys(e).sort());
    for (const key of Object.keys(e)) expectClose(a[key], e[key], `${path}.${key}`);
    return;
  }
  expect(actual, path).toEqual(expected);
}

/** The ids of a process's children (Linux /proc). */
export function childPids(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return children === '' ? [] : children.split(/\s+/).map(Number);
}

/**
 * Waits until the run's row has `status` and returns the row. While another status is awaited, a run that fails
 * throws at once with its error instead of waiting out the timeout.
 */
export function untilRunStatus(
  prisma: PrismaClient,
  runId: string,
  status: RunStatus,
  timeoutMs: number,
  stack?: Stack,
) {
  return until(
    `run ${runId} to be ${status}`,
    async () => {
      const row = await prisma.run.findUniqueOrThrow({ where: { id: runId } });
      if (status !== 'failed' && row.status === 'failed') throw new Error(`run ${runId} failed: ${row.error}`);
      return row.status === status ? row : undefined;
    },
    timeoutMs,
    stack,
  );
}
