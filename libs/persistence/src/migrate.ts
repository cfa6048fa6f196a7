import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** The folder of committed SQL migrations (Prisma's layout: <timestamp>_<name>/migration.sql). */
export const MIGRATIONS_DIR = join(import.meta.dirname, '..', '..', '..', 'prisma', 'migrations');

/** Prisma Migrate's own lock id, so this runner and `prisma migrate deploy` never run at the same time. */
const MIGRATION_LOCK_ID = 72707369;

export interface MigrationReport {
  applied: string[];
  alreadyApplied: string[];
}

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

function readMigrations(dir: string): MigrationFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies the committed SQL migrations that the database has not seen, each in its own transaction, and
 * records them in `_prisma_migrations` exactly as Prisma Migrate does, so production can use
 * `prisma migrate deploy` on the same database. Safe to run concurrently (advisory lock) and repeatedly.
 * A migration whose file changed after it was applied is an error: migrations are append-only.
 */
export async function applyMigrations(databaseUrl: string, dir = MIGRATIONS_DIR): Promise<MigrationReport> {
  const migrations = readMigrations(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    await client.query(`CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
      "id" VARCHAR(36) PRIMARY KEY NOT NULL,
      "checksum" VARCHAR(64) NOT NULL,
      "finished_at" TIMESTAMPTZ,
      "migration_name" VARCHAR(255) NOT NULL,
      "logs" TEXT,
      "rolled_back_at" TIMESTAMPTZ,
      "started_at" TIMESTAMPTZ NOT NULL DEFAULT now(),
      "applied_steps_count" INTEGER NOT NULL DEFAULT 0)`);
    const { rows } = await client.query<{ migration_name: string; checksum: string }>(
      `SELECT migration_name, checksum FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
    );
    const done = new Map(rows.map((row) => [row.migration_name, row.checksum]));
    const report: MigrationReport = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const recorded = done.get(migration.name);
      if (recorded !== undefined) {
        if (recorded !== migration.checksum) {
          throw new Error(
            `migration ${migration.name} was changed after it was applied (checksum ${recorded} in the database, ` +
              `${migration.checksum} on disk); add a new migration instead`,
          );
        }
        report.alreadyApplied.push(migration.name);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, applied_steps_count)
           VALUES ($1, $2, now(), $3, 1)`,
          [randomUUID(), migration.checksum, migration.name],
        );
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
      }
      report.applied.push(migration.name);
    }
    return report;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end();
  }
}

/**
 * Runs `work` with the name of the database in `databaseUrl` and a client on the server's `postgres` database
 * (CREATE/DROP DATABASE cannot run inside the database itself).
 */
async function onServer<T>(databaseUrl: string, work: (client: pg.Client, name: string) => Promise<T>): Promise<T> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`database name "${name}" must be letters, digits and _`);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    return await work(client, name);
  } finally {
    await client.end();
  }
}

/** Creates the database named in `databaseUrl` if it does not exist. Returns whether it created it. */
export function ensureDatabase(databaseUrl: string): Promise<boolean> {
  return onServer(databaseUrl, async (client, name) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    await client.query(`CREATE DATABASE "${name}"`);
    return true;
  });
}

/** Drops the database named in `databaseUrl` if it exists, closing its connections (for throwaway test databases). */
export function dropDatabase(databaseUrl: string): Promise<void> {
  return onServer(databaseUrl, async (client, name) => {
    await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
}
