import { DEFAULT_DATABASE_URL } from '@fathom/persistence';
import { LOG_LEVELS } from '@fathom/observability';
import { envInt, HostNameListSchema, isLoopbackHost, loadEnvConfig, PortSchema } from '@fathom/runtime';
import { z } from 'zod';

export { ConfigError } from '@fathom/runtime';

/** The shipped manifests' placeholder secrets start with this; such a token is refused. */
const PLACEHOLDER_PREFIX = 'change-me';

/** Shortest accepted ADMIN_TOKEN: long enough that guessing it is hopeless. */
export const MIN_TOKEN_LENGTH = 16;

/**
 * The admin API's configuration, read once at boot from environment variables. Defaults work on one machine.
 * The token is ADMIN_TOKEN, or the content of ADMIN_TOKEN_FILE (generated there when the file does not exist);
 * with NODE_ENV=production one of them is required. With a token, every route but /health and /metrics needs
 * `Authorization: Bearer <token>`. Without one the API is open, so it listens on loopback only: HOST defaults to
 * 127.0.0.1, a HOST that is not loopback is refused until a token is set, and requests must name a loopback host or
 * one of ADMIN_ALLOWED_HOSTS in their `Host` header (so a web page rebound to 127.0.0.1 is not answered).
 */
export const AdminApiConfigSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    /** Interface to listen on; absent: 0.0.0.0 with a token, 127.0.0.1 without (see `listenHost`). */
    HOST: z.string().min(1).optional(),
    /** HTTP port; 0 picks a free one. */
    HTTP_PORT: PortSchema.default(8080),
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
    ADMIN_TOKEN: z
      .string()
      .min(MIN_TOKEN_LENGTH, `must be at least ${MIN_TOKEN_LENGTH} characters`)
      .refine(
        (token) => !token.startsWith(PLACEHOLDER_PREFIX),
        `is a placeholder ("${PLACEHOLDER_PREFIX}…", as in k8s/config.yaml) that anyone can read; set a random one, ` +
          'e.g. openssl rand -hex 32',
      )
      .optional(),
    /**
     * A file holding the token (a Docker or Kubernetes secret), read when ADMIN_TOKEN is unset. When the file does
     * not exist a random token is written there (mode 0600) and the log says where; docker-compose.yml uses this.
     */
    ADMIN_TOKEN_FILE: z.string().min(1).optional(),
    /**
     * Without a token, host names (comma-separated, no port) that requests may address besides loopback (127.0.0.1,
     * localhost, [::1]), e.g. the name of an SSH tunnel's end; others are answered 421. Unused with a token.
     */
    ADMIN_ALLOWED_HOSTS: HostNameListSchema.default([]),
    /**
     * Directories (comma-separated, relative to the working directory) that a run's `model.checkpoint` and
     * `data.trainFile`, and an eval's `checkpoint`, must lie in; "default" (the shipped model) is always allowed.
     */
    DATA_ROOTS: z.string().default('data,out'),
    /** Largest accepted request body. */
    MAX_BODY_BYTES: envInt(1024).default(1024 * 1024),
    /** How long /health and GET /queues wait for Postgres or Redis before answering 503. */
    DEPENDENCY_TIMEOUT_MS: envInt(1).default(2000),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  })
  .superRefine((config, ctx) => {
    const hasToken = config.ADMIN_TOKEN !== undefined || config.ADMIN_TOKEN_FILE !== undefined;
    if (config.NODE_ENV === 'production' && !hasToken) {
      ctx.addIssue({ code: 'custom', path: ['ADMIN_TOKEN'], message: 'required when NODE_ENV=production' });
    } else if (!hasToken && config.HOST !== undefined && !isLoopbackHost(config.HOST)) {
      ctx.addIssue({
        code: 'custom',
        path: ['ADMIN_TOKEN'],
        message:
          `required to listen on HOST=${config.HOST}, which is not loopback: without a token anyone who can ` +
          'reach the port can start and stop runs; unset HOST to listen on 127.0.0.1 only',
      });
    }
  });

export type AdminApiConfig = z.infer<typeof AdminApiConfigSchema>;

/** Where the API listens: HOST when set, else every interface with a token and loopback only without one. */
export function listenHost(config: AdminApiConfig): string {
  if (config.HOST !== undefined) return config.HOST;
  return config.ADMIN_TOKEN !== undefined || config.ADMIN_TOKEN_FILE !== undefined ? '0.0.0.0' : '127.0.0.1';
}

/** Parses and validates the environment; throws ConfigError naming each bad or missing variable (never the token). */
export function loadConfig(env: Record<string, string | undefined>): AdminApiConfig {
  return loadEnvConfig('admin-api', AdminApiConfigSchema, env, ['ADMIN_TOKEN']);
}
