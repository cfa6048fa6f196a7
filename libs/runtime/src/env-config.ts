import { LOG_LEVELS } from '@fathom/observability';
import { DEFAULT_DATABASE_URL } from '@fathom/persistence';
import type { RuntimeConfig } from '@fathom/tensor';
import { z } from 'zod';

/** A configuration error that names the offending variables; a service's main prints it and exits. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Optional `host:port` (gRPC addresses). */
export const HostPortSchema = z.string().regex(/^[^\s:]+:\d+$/, 'expected host:port');
export const PostgresUrlSchema = z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgresql:// URL');
export const RedisUrlSchema = z.string().regex(/^rediss?:\/\//, 'expected a redis:// URL');
/** Prefix of the BullMQ keys; every service of one deployment uses the same. */
export const QueuePrefixSchema = z.string().regex(/^[A-Za-z0-9_-]+$/, 'letters, digits, "_" and "-" only');
/** An integer read from an environment string. */
export const envInt = (min: number) => z.coerce.number().int().min(min);
export const PortSchema = envInt(0).max(65535);

/**
 * A bearer token a service is given (GRPC_TOKEN): long enough not to be guessed, and not a deployment file's
 * placeholder (`change-me-…` in k8s/config.yaml).
 */
export const TokenSchema = z
  .string()
  .min(16, 'must be at least 16 characters')
  .refine((token) => !token.startsWith('change-me'), 'is the placeholder of k8s/config.yaml; set a random one');

/**
 * Parses a service's environment once at boot. Only the variables the schema names are read; an empty string
 * counts as unset (so `FOO=` in a compose file falls back to the default). On failure throws one ConfigError that
 * names every bad or missing variable; values of `secrets` and of every `*_TOKEN` variable are never echoed.
 */
export function loadEnvConfig<S extends z.ZodObject>(
  service: string,
  schema: S,
  env: Record<string, string | undefined>,
  secrets: readonly string[] = [],
): z.output<S> {
  const relevant = Object.fromEntries(
    Object.keys(schema.shape).flatMap((k) => (env[k] === undefined || env[k] === '' ? [] : [[k, env[k]]])),
  );
  const parsed = schema.safeParse(relevant);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const name = String(issue.path[0]);
    if (relevant[name] === undefined) return `${name} is required (${issue.message})`;
    const shown = secrets.includes(name) || name.endsWith('_TOKEN') ? '(hidden)' : JSON.stringify(relevant[name]);
    return `${name}=${shown}: ${issue.message}`;
  });
  throw new ConfigError(`invalid ${service} configuration: ${problems.join('; ')}`);
}

/**
 * The gRPC server settings of every service that serves gRPC. GRPC_HOST: the address its gRPC server binds; loopback
 * by default, so that the weights, inference and scoring services are not reachable from other hosts of a laptop's
 * network; docker-compose.yml and k8s set 0.0.0.0, where the other services reach it by its container's name.
 * GRPC_TOKEN: the token every call must carry (`authorization: Bearer <token>`), the same for every service of a
 * deployment, which each also sends to the others' gRPC services; unset: calls need none.
 */
export function grpcEnvShape() {
  return {
    GRPC_HOST: z.string().min(1).default('127.0.0.1'),
    GRPC_TOKEN: TokenSchema.optional(),
  };
}

/**
 * The variables every worker service has: where it listens for /health and /metrics (HOST) and serves gRPC
 * (`grpcEnvShape`), Redis and its queue prefix, Postgres, and the log level. Spread into a service's schema with its
 * own HTTP port default.
 */
export function serviceEnvShape(httpPort: number) {
  return {
    HOST: z.string().min(1).default('0.0.0.0'),
    ...grpcEnvShape(),
    /** /health and /metrics; 0 picks a free port. */
    HTTP_PORT: PortSchema.default(httpPort),
    REDIS_URL: RedisUrlSchema.default('redis://127.0.0.1:6379'),
    QUEUE_PREFIX: QueuePrefixSchema.default('fathom'),
    DATABASE_URL: PostgresUrlSchema.default(DEFAULT_DATABASE_URL),
    LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
    /**
     * How long a job waits out Postgres or Redis being unreachable (retrying with backoff) before the outage counts
     * as a failed attempt; 0 = never wait.
     */
    INFRA_RETRY_S: envInt(0).default(120),
  };
}

/** The onnxruntime settings of a service that runs the model (learner-service, rollout-worker). */
export function onnxEnvShape() {
  return {
    /** onnxruntime execution provider: "cpu", or "cuda" on GPU nodes (needs the CUDA build of onnxruntime-node). */
    EXECUTION_PROVIDER: z.enum(['cpu', 'cuda']).default('cpu'),
    /**
     * onnxruntime threads inside one op; unset, one per core the process may use (`os.availableParallelism()`),
     * which counts the host's cores in a container with a CPU quota: set it to the quota there. 0 = onnxruntime's
     * own choice.
     */
    INTRA_OP_THREADS: envInt(0).optional(),
  };
}

/** The runtime config of a service's model graphs, from its `onnxEnvShape` variables. */
export function runtimeConfigOf(config: {
  EXECUTION_PROVIDER: 'cpu' | 'cuda';
  INTRA_OP_THREADS?: number;
}): RuntimeConfig {
  return config.INTRA_OP_THREADS === undefined
    ? { executionProvider: config.EXECUTION_PROVIDER }
    : { executionProvider: config.EXECUTION_PROVIDER, intraOpThreads: config.INTRA_OP_THREADS };
}
