import { Command } from 'commander';
import { applyMigrations, DEFAULT_DATABASE_URL, ensureDatabase } from '@fathom/persistence';

/** `fathom db migrate`: creates the database if needed and applies the committed SQL migrations. */
export function dbCommand(): Command {
  const db = new Command('db').description('Database (Postgres) administration');
  db.command('migrate')
    .description('Create the database if missing and apply prisma/migrations (what `prisma migrate deploy` does)')
    .option('--database-url <url>', 'Postgres URL (default: $DATABASE_URL or the local fathom database)')
    .action(async (options: { databaseUrl?: string }) => {
      const url = options.databaseUrl ?? process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
      const created = await ensureDatabase(url);
      const report = await applyMigrations(url);
      console.log(
        JSON.stringify({
          database: new URL(url).pathname.slice(1),
          created,
          applied: report.applied,
          alreadyApplied: report.alreadyApplied.length,
        }),
      );
    });
  return db;
}
