import { DEFAULT_DATABASE_URL } from '@fathom/persistence';
import { LOG_LEVELS } from '@fathom/observability';
import { z } from 'zod';

const int = (min: number) => z.coerce.number().int().min(min);

/** Shortest accepted ADMIN_TOKEN: long enough that guessing it is hopeless. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The admin API's configuration, read once at boot from environment variables. Defaults work on one machine.
 * With NODE_ENV=production an ADMIN_TOKEN is required; whenever a token is set, every route but /health and
 * /metrics needs `Authorization: Bearer <token>`.
 */
export const AdminApiConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    HOST: z.string().min(1).default('0.0.0.0'),
    /** HTTP port; 0 picks a free one. */
    HTTP_PORT: int(0).max(65535).default(8080),
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'expected a postgresql:// URL')
      .default(DEFAULT_DATABASE_URL),
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'expected a redis:// URL')
      .default('redis://127.0.0.1:6379'),
    /** Prefix of the BullMQ keys; every service of one deployment uses the same. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" and "-" only')
      .default('fathom'),
    ADMIN_TOKEN: z.string().min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`).optional(),
    /** Largest accepted request body. */
    MAX_BODY_BYTES: int(1024).default(1024 * 1024),
    /** How long /health and GET /queues wait for Postgres or Redis before answering 503. */
    DEPENDENCY_TIMEOUT_MS: int(1).default(2000),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  })
  .superRefine((config, ctx) => {
    if (config.NODE_ENV === 'production' && config.ADMIN_TOKEN === undefined) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'required when NODE_ENV=production' });
    }
  });

export type AdminApiConfig = z.infer<typeof AdminApiConfigSchema>;

/** A configuration error that names the offending variables; main.ts prints it and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses and validates the environment; throws ConfigError naming each bad or missing variable. */
export function loadConfig(env: Record<string, string | undefined>): AdminApiConfig {
  const names = Object.keys(AdminApiConfigSchema.shape);
  const relevant = Object.fromEntries(
    names.flatMap((k) => (env[k] === undefined || env[k] === '' ? [] : [[k, env[k]]])),
  );
  const parsed = AdminApiConfigSchema.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => {
    const name = String(i.path[0]);
    // Never echo the token back: it is a secret even when it is too short.
    const shown = name === 'ADMIN_TOKEN' ? '(hidden)' : JSON.stringify(relevant[name]);
    return relevant[name] === undefined ? `${name} is required (${i.message})` : `${name}=${shown}: ${i.message}`;
  });
  throw new ConfigError(`invalid admin-api configuration: ${problems.join('; ')}`);
}
