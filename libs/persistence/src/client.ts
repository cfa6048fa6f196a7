import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export { PrismaClient };

/** The default database of a local FATHOM (the machine's Postgres, trust auth). */
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/fathom';

/** A Prisma client over node-postgres (Prisma 7's driver-adapter client; no query engine binary). */
export function createPrismaClient(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
}
