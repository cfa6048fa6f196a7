import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConfigError, MIN_TOKEN_LENGTH, type AdminApiConfig } from './config';

/** The bearer token in force, and where it came from (for the boot log; never the token itself). */
export interface ResolvedToken {
  token: string | undefined;
  source: 'none' | 'ADMIN_TOKEN' | 'ADMIN_TOKEN_FILE' | 'generated';
}

/**
 * The token of a validated config: ADMIN_TOKEN, else the first line of ADMIN_TOKEN_FILE. A missing file is created
 * with a random 32-character token, mode 0600, and never overwritten, so restarts keep the token and concurrent
 * starts agree on one. An unreadable or too short file is a ConfigError naming ADMIN_TOKEN_FILE.
 */
export async function resolveAdminToken(config: AdminApiConfig): Promise<ResolvedToken> {
  if (config.ADMIN_TOKEN !== undefined) return { token: config.ADMIN_TOKEN, source: 'ADMIN_TOKEN' };
  const file = config.ADMIN_TOKEN_FILE;
  if (file === undefined) return { token: undefined, source: 'none' };
  let source: ResolvedToken['source'] = 'ADMIN_TOKEN_FILE';
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${randomBytes(24).toString('base64url')}\n`, { flag: 'wx', mode: 0o600 });
    source = 'generated';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new ConfigError(`ADMIN_TOKEN_FILE=${file}: cannot create it (${(error as Error).message})`);
    }
  }
  let token: string;
  try {
    token = (await readFile(file, 'utf8')).split('\n')[0]!.trim();
  } catch (error) {
    throw new ConfigError(`ADMIN_TOKEN_FILE=${file}: cannot read it (${(error as Error).message})`);
  }
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new ConfigError(`ADMIN_TOKEN_FILE=${file}: the token in it must be at least ${MIN_TOKEN_LENGTH} characters`);
  }
  return { token, source };
}
