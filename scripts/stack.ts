import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { sumSamples } from '@fathom/observability';
import { freePort, launchService, type ServiceProcess } from '@fathom/runtime';

export interface StackOptions {
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  runsDir: string;
  rolloutWorkers: number;
  /** Extra environment of the rollout workers (e.g. short job locks for a crash test). */
  workerEnv?: Record<string, string>;
  /** Extra environment of one service, by name (e.g. `{ 'reward-service': { DATABASE_URL } }` for a fault test). */
  serviceEnv?: Record<string, Record<string, string>>;
  /** Every service's GRPC_TOKEN: their gRPC servers then answer only calls that carry it, as theirs to each other do. */
  grpcToken?: string;
  /**
   * Also start the env-service (OpenEnv HTTP/WS/gRPC) over this dataset, before the rollout workers: they run every
   * rollout and eval episode in it (their ENV_URL, its /ws) and answer those episodes' llm() calls with the policy being
   * trained; outside clients' llm() calls go to the first rollout worker's Inference endpoint.
   */
  envService?: { datasetPath?: string };
  /**
   * Run the compiled services (`dist/<service>.mjs`, what the images run; build them first with `npm run build`)
   * instead of their TypeScript sources through tsx.
   */
  compiled?: boolean;
  /** Each service in a process group of its own (see LaunchOptions.ownProcessGroup); the demo stops them itself. */
  ownProcessGroups?: boolean;
  /** The admin API's port (default 0: a free one). */
  adminPort?: number;
  /**
   * Where runs and evals may name checkpoints and task files (the admin API's DATA_ROOTS; default: data and out
   * of the working directory). Tests add their fixture's folder.
   */
  dataRoots?: string[];
  /** Forwarded log lines (default: kept only for failure messages). */
  onLine?: (service: string, line: string) => void;
  /** Aborting it stops the start before the next service: the ones started are stopped, and startStack rejects. */
  signal?: AbortSignal;
  /** Called as each service is launched, and again once it is ready (start-up takes seconds per service). */
  onLaunch?: (service: string) => void;
  onReady?: (service: ServiceProcess) => void;
}

/** Counters of the env-service's /metrics: what the rollout workers' episodes cost it. */
export interface EnvServed {
  /** Episodes reset over WebSocket /ws (each rollout episode, child episodes included). */
  resets: number;
  /** Code steps served over WebSocket /ws. */
  codeSteps: number;
  /** llm() calls answered by the session client (the workers' policy), and by the service's own endpoint. */
  clientLlmCalls: number;
  serviceLlmCalls: number;
}

export interface Stack {
  services: ServiceProcess[];
  adminUrl: string;
  learnerHttpPort: number;
  /** The env-service's HTTP base URL, when it was started. */
  envUrl: string | null;
  /**
   * Starts a service of the stack again (after it was killed, or stops it first) with the same environment: the
   * learner binds the same gRPC port (chosen up front), so the services that call it find it again. It replaces the
   * old one in `services`.
   */
  restart(name: string): Promise<ServiceProcess>;
  /** Starts one more rollout worker (e.g. after the others, or none, were started); it stops with the stack. */
  addRolloutWorker(): Promise<ServiceProcess>;
  /** What the env-service has served so far (from its /metrics), or null when it was not started. */
  envServed(): Promise<EnvServed | null>;
  stop(): Promise<void>;
}

async function envServed(envUrl: string): Promise<EnvServed> {
  const text = await (await fetch(`${envUrl}/metrics`)).text();
  return {
    resets: sumSamples(text, 'fathom_env_reset_seconds_count', { transport: 'ws' }),
    codeSteps: sumSamples(text, 'fathom_env_step_seconds_count', { transport: 'ws', kind: 'code' }),
    clientLlmCalls: sumSamples(text, 'fathom_env_llm_calls_total', { answered_by: 'client' }),
    serviceLlmCalls: sumSamples(text, 'fathom_env_llm_calls_total', { answered_by: 'service' }),
  };
}

/**
 * A service's entry point: its source, or its bundle when compiled. The stack runs from the repository root, which is
 * every service's working directory.
 */
function entry(app: string, compiled: boolean): string {
  if (!compiled) return resolve('apps', app, 'src', 'main.ts');
  const bundle = resolve('dist', `${app}.mjs`);
  if (!existsSync(bundle)) throw new Error(`${bundle} does not exist: build the services first (npm run build)`);
  return bundle;
}

/**
 * Starts FATHOM's services as separate processes on free ports, in dependency order: the learner (its gRPC port
 * goes to the workers), the reward-service, optionally the env-service, N rollout workers, and the admin API. Used
 * by `npm run demo`, the end-to-end test and bench/e2e.
 */
export async function startStack(o: StackOptions): Promise<Stack> {
  const common = {
    DATABASE_URL: o.databaseUrl,
    REDIS_URL: o.redisUrl,
    QUEUE_PREFIX: o.queuePrefix,
    HOST: '127.0.0.1',
    HTTP_PORT: '0',
    LOG_LEVEL: 'info',
    ...(o.grpcToken === undefined ? {} : { GRPC_TOKEN: o.grpcToken }),
  };
  const services: ServiceProcess[] = [];
  const launched = new Map<string, { app: string; env: Record<string, string>; readyMessage: string }>();
  const launch = async (name: string, app: string, env: Record<string, string>, readyMessage: string) => {
    o.signal?.throwIfAborted();
    o.onLaunch?.(name);
    const service = await launchService({
      name,
      entry: entry(app, o.compiled === true),
      cwd: process.cwd(),
      env: { ...common, ...env, ...o.serviceEnv?.[name] },
      readyMessage,
      timeoutMs: 120_000,
      ownProcessGroup: o.ownProcessGroups,
      onLine: o.onLine ? (line) => o.onLine!(name, line) : undefined,
    });
    services.push(service);
    launched.set(name, { app, env, readyMessage });
    o.onReady?.(service);
    return service;
  };
  const stop = async () => {
    await Promise.all(services.reverse().map((s) => s.stop()));
  };
  const restart = async (name: string) => {
    const old = services.find((s) => s.name === name);
    const spec = launched.get(name);
    if (old === undefined || spec === undefined) throw new Error(`no service ${name} in the stack`);
    await old.stop();
    services.splice(services.indexOf(old), 1);
    return launch(name, spec.app, spec.env, spec.readyMessage);
  };
  let workers = 0;
  let policyAddress = '';
  let envAddress: Record<string, string> = {};
  /** The first worker's Inference port, chosen up front when the env-service (started before it) needs it. */
  let firstInferencePort = '0';
  const addRolloutWorker = () => {
    const inferencePort = ++workers === 1 ? firstInferencePort : '0';
    return launch(
      `rollout-worker-${workers}`,
      'rollout-worker',
      {
        POLICY_ADDRESS: policyAddress,
        SANDBOX_WORKERS: '1',
        INFERENCE_PORT: inferencePort,
        ...envAddress,
        ...o.workerEnv,
      },
      'rollout-worker started',
    );
  };
  try {
    // The gRPC ports peers are told are chosen up front (freePort: outside the ephemeral range), so a restarted
    // service binds the same one again and no other socket can have taken it in between.
    const learner = await launch(
      'learner-service',
      'learner-service',
      { GRPC_PORT: String(await freePort()), RUNS_DIR: o.runsDir, POLL_INTERVAL_MS: '200', STEP_TIMEOUT_S: '600' },
      'learner-service started',
    );
    policyAddress = `127.0.0.1:${learner.ready.grpc_port}`;
    await launch('reward-service', 'reward-service', {}, 'reward-service started');
    let envUrl: string | null = null;
    if (o.envService) {
      firstInferencePort = String(await freePort());
      const env = await launch(
        'env-service',
        'env-service',
        {
          GRPC_PORT: '0',
          INFERENCE_ADDRESS: `127.0.0.1:${firstInferencePort}`,
          ...(o.envService.datasetPath === undefined ? {} : { DATASET_PATH: o.envService.datasetPath }),
          SANDBOX_WORKERS: '1',
        },
        'env-service listening',
      );
      envUrl = `http://127.0.0.1:${env.ready.http_port}`;
      envAddress = { ENV_URL: `ws://127.0.0.1:${env.ready.http_port}/ws` };
    }
    for (let i = 1; i <= o.rolloutWorkers; i++) await addRolloutWorker();
    const admin = await launch(
      'admin-api',
      'admin-api',
      {
        HTTP_PORT: String(o.adminPort ?? 0),
        ...(o.dataRoots ? { DATA_ROOTS: ['data', 'out', ...o.dataRoots].join(',') } : {}),
      },
      'admin-api listening',
    );
    return {
      services,
      adminUrl: `http://127.0.0.1:${admin.ready.port}`,
      learnerHttpPort: Number(learner.ready.http_port),
      envUrl,
      restart,
      addRolloutWorker,
      envServed: () => (envUrl === null ? Promise.resolve(null) : envServed(envUrl)),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
