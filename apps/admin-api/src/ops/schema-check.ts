import { MIGRATIONS_DIR, type PrismaClient } from '@fathom/persistence';
import { ConfigError } from '@fathom/runtime';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Why the admin API refuses to start against the database DATABASE_URL names: a configuration error. */
export class DatabaseNotReadyError extends ConfigError {
  override name = 'DatabaseNotReadyError';
}

/**
 * Boot check: the database answers and every committed migration is applied. The API never migrates by itself
 * (schema changes belong to a deploy step); without this check an unmigrated database would answer every request
 * with a 500.
 */
export async function assertSchemaApplied(prisma: PrismaClient, databaseUrl: string): Promise<void> {
  const where = new URL(databaseUrl);
  const name = `${where.host}${where.pathname}`;
  const expected = readdirSync(MIGRATIONS_DIR).filter((dir) => existsSync(join(MIGRATIONS_DIR, dir, 'migration.sql')));
  let applied: string[];
  try {
    const rows = await prisma.$queryRaw<{ migration_name: string }[]>`
      SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
    applied = rows.map((row) => row.migration_name);
  } catch (error) {
    const message = (error as Error).message;
    if (/_prisma_migrations.*does not exist|relation .* does not exist/s.test(message)) applied = [];
    else throw new DatabaseNotReadyError(`cannot query Postgres at ${name}: ${message.trim().split('\n').pop()}`);
  }
  const missing = expected.filter((migration) => !applied.includes(migration));
  if (missing.length > 0) {
    throw new DatabaseNotReadyError(
      `database ${name} lacks migrations ${missing.join(', ')}; apply them with "apps/cli/bin/fathom db migrate" ` +
        `(production: "prisma migrate deploy")`,
    );
  }
}
