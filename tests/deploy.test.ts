/**
 * Static validation of the deployment files against the code: Dockerfile targets, docker-compose.yml, k8s/,
 * deploy/prometheus.yml and the Grafana dashboard. Every check is a pure function that returns the problems it
 * found, so the negative cases below can run it on a mutated copy and see it fail.
 *
 * The services' zod config schemas are the source of truth for environment variable names, defaults and ports;
 * metric names come from the metric declarations (`counter('x', ...)`) in the source.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Metafile } from 'esbuild';
import { join } from 'node:path';
import { METRIC_PREFIX } from '@fathom/observability';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { AdminApiConfigSchema } from '../apps/admin-api/src/config';
import { EnvServiceConfigSchema } from '../apps/env-service/src/config';
import { LearnerServiceConfigSchema } from '../apps/learner-service/src/config';
import { RewardServiceConfigSchema } from '../apps/reward-service/src/config';
import { RolloutWorkerConfigSchema } from '../apps/rollout-worker/src/config';
import { bundleAll, ENTRIES, packageOf } from '../scripts/build';

const root = join(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** Each deployed service's config schema, by app folder name. */
const SCHEMAS: Record<string, z.ZodObject> = {
  'env-service': EnvServiceConfigSchema,
  'admin-api': AdminApiConfigSchema,
  'rollout-worker': RolloutWorkerConfigSchema,
  'reward-service': RewardServiceConfigSchema,
  'learner-service': LearnerServiceConfigSchema,
};
/** The one-shot migration runner (apps/cli `fathom db migrate`) reads only DATABASE_URL. */
const MIGRATE = 'migrate';
const MIGRATE_ENV = ['DATABASE_URL'];
/** Set by the images for Node itself, not read by the services' config. */
const RUNTIME_ENV = new Set(['NODE_OPTIONS']);
/** Config keys that are gRPC ports: GRPC_PORT, and rollout-worker's INFERENCE_PORT (gRPC Inference). */
const GRPC_PORT_KEYS = ['GRPC_PORT', 'INFERENCE_PORT'];
/** Services that run on GPU nodes with the CUDA build of onnxruntime-node in Kubernetes. */
const GPU_SERVICES = ['rollout-worker', 'learner-service'];
/**
 * What the dashboard must show (issue #8): queue depth, job latency, rollout tokens/s, env step latency, reward by
 * component, frac_reward_zero_std, KL, learner step time, policy version lag.
 */
const DASHBOARD_METRICS = [
  'fathom_queue_jobs',
  'fathom_queue_job_seconds',
  'fathom_rollout_tokens_per_second',
  'fathom_rollout_env_step_seconds',
  'fathom_env_step_seconds',
  'fathom_step_reward_component',
  'fathom_reward_component',
  'fathom_frac_reward_zero_std',
  'fathom_kl',
  'fathom_learner_step_seconds',
  'fathom_policy_version_lag',
];
/** Series Prometheus itself adds to every scrape. */
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const obj = (v: unknown): Json => (isObj(v) ? v : {});
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

// ---------------------------------------------------------------- Dockerfile

interface Stage {
  cmd: string[] | null;
  env: Record<string, string>;
  /** The stage it is built on (FROM), when that is a stage of the file. */
  base: string | null;
  /** The stage whose /app this stage copies (`COPY --from=<stage> /app /app`), if any. */
  appFrom: string | null;
  /** Its own RUN commands (not the base's). */
  runs: string[];
}

/** Stages of a Dockerfile with CMD and ENV inherited from the stage they build on. */
function parseDockerfile(text: string): Map<string, Stage> {
  const lines = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const stages = new Map<string, Stage>();
  let current: Stage | null = null;
  for (const line of lines) {
    const [instruction = '', ...rest] = line.split(/\s+/);
    const args = rest.join(' ');
    switch (instruction.toUpperCase()) {
      case 'FROM': {
        const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
        if (!m) throw new Error(`Dockerfile: unreadable FROM ${args}`);
        const base = stages.get(m[1]!);
        current = {
          cmd: base?.cmd ?? null,
          env: { ...base?.env },
          base: base ? m[1]! : null,
          appFrom: null,
          runs: [],
        };
        if (m[2]) stages.set(m[2], current);
        break;
      }
      case 'CMD':
        if (current) current.cmd = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
        break;
      case 'RUN':
        current?.runs.push(args);
        break;
      case 'COPY': {
        const from = /^--from=(\S+)\s+\/app\s+\/app$/.exec(args);
        if (current && from) current.appFrom = from[1]!;
        break;
      }
      case 'ENV':
        if (current) for (const [, k, v] of args.matchAll(/(\w+)=(\S*)/g)) current.env[k!] = v!;
        break;
    }
  }
  return stages;
}

/** The app a Dockerfile target runs: its compiled `dist/<app>.mjs` (scripts/build.ts), or the migration runner. */
function appOfTarget(stages: Map<string, Stage>, target: string): string | null {
  const cmd = stages.get(target)?.cmd?.join(' ') ?? '';
  if (/\bdist\/cli\.mjs db migrate$/.test(cmd)) return MIGRATE;
  const bundle = /\bdist\/([\w-]+)\.mjs$/.exec(cmd);
  return bundle !== null && ENTRIES[bundle[1]!] === `apps/${bundle[1]}/src/main.ts` ? bundle[1]! : null;
}

/**
 * Problems of a target whose image would hold dev dependencies: the stage it takes /app from (its own, or its
 * base's) must end with `npm prune --omit=dev` (or install with `npm ci --omit=dev`).
 */
function devDependencyProblems(stages: Map<string, Stage>, target: string): string[] {
  let stage: string | null = target;
  while (stage !== null && stages.get(stage)?.appFrom == null) stage = stages.get(stage)?.base ?? null;
  const from = stage === null ? null : stages.get(stage)!.appFrom!;
  if (from === null) return [`${target}: copies /app from no stage`];
  const runs = stages.get(from)?.runs ?? [];
  return runs.some((r) => /\bnpm (prune|ci)\b[^&]*--omit=dev/.test(r))
    ? []
    : [`${target}: its /app comes from stage ${from}, which keeps the dev dependencies (no npm prune --omit=dev)`];
}

/**
 * Packages the compiled services, CLI and sandbox worker load at run time (the bundles' external imports, from the
 * build's metafile) that package.json does not list as production dependencies.
 */
function runtimeDependencyProblems(pkg: Json, metafile: Metafile): string[] {
  const production = new Set(Object.keys(obj(pkg.dependencies)));
  const problems: string[] = [];
  for (const [bundle, output] of Object.entries(metafile.outputs))
    for (const name of new Set(output.imports.filter((i) => i.external).map((i) => packageOf(i.path))))
      if (name !== null && !production.has(name))
        problems.push(`${bundle} imports ${name}, which is not a production dependency`);
  return problems;
}

// ---------------------------------------------------------------- shared checks

interface Workload {
  /** Where it is declared, for messages. */
  where: string;
  app: string;
  env: Record<string, string>;
}

/** The parsed config of a workload, or null (with problems recorded) when its environment does not validate. */
function checkEnv(w: Workload, problems: string[]): Json | null {
  // As the services' loaders do: an empty value counts as unset.
  const env = Object.fromEntries(Object.entries(w.env).filter(([k, v]) => v !== '' && !RUNTIME_ENV.has(k)));
  if (w.app === MIGRATE) {
    for (const k of Object.keys(env))
      if (!MIGRATE_ENV.includes(k)) problems.push(`${w.where}: ${k} is not read by the migrate job`);
    for (const k of MIGRATE_ENV) if (env[k] === undefined) problems.push(`${w.where}: ${k} is not set`);
    return null;
  }
  const schema = SCHEMAS[w.app];
  if (!schema) {
    problems.push(`${w.where}: no config schema known for app ${w.app}`);
    return null;
  }
  for (const k of Object.keys(env)) {
    if (!(k in schema.shape)) problems.push(`${w.where}: ${k} is not a key of ${w.app}'s config schema`);
  }
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = String(issue.path[0] ?? '(config)');
      problems.push(
        env[key] === undefined
          ? `${w.where}: ${key} is required by ${w.app} but not set (${issue.message})`
          : `${w.where}: ${key}=${env[key]} is invalid for ${w.app}: ${issue.message}`,
      );
    }
    return null;
  }
  return parsed.data as Json;
}

/** The ports a service listens on: HTTP_PORT, and the gRPC ports (GRPC_PORT_KEYS) its schema has. */
function servicePorts(config: Json): { http: number; grpc: number[] } {
  const grpc = GRPC_PORT_KEYS.filter((k) => config[k] !== undefined).map((k) => Number(config[k]));
  return { http: Number(config.HTTP_PORT), grpc };
}

/**
 * What is wrong with a containerised service's gRPC settings: a gRPC server bound to loopback (GRPC_HOST, whose
 * default is loopback) cannot be reached by the other containers, and a service whose schema reads GRPC_TOKEN must be
 * given it (an empty compose default counts), so that setting the token once protects every call between them.
 */
function grpcProblems(app: string, config: Json, env: Record<string, string>, where: string): string[] {
  const problems: string[] = [];
  const host = str(config.GRPC_HOST);
  if (servicePorts(config).grpc.length > 0 && /^(127\.|localhost$|::1$)/.test(host))
    problems.push(`${where}: GRPC_HOST ${host} is loopback: the other containers cannot reach its gRPC server`);
  if ('GRPC_TOKEN' in (SCHEMAS[app]?.shape ?? {}) && !('GRPC_TOKEN' in env))
    problems.push(`${where}: GRPC_TOKEN is not passed to it`);
  return problems;
}

function sameSet(a: number[], b: number[]): boolean {
  const x = [...new Set(a)].sort((p, q) => p - q);
  const y = [...new Set(b)].sort((p, q) => p - q);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

function redisDurabilityProblems(args: string[]): string[] {
  const line = args.join(' ');
  const problems: string[] = [];
  if (!/--maxmemory-policy\s+noeviction/.test(line)) problems.push('redis runs without --maxmemory-policy noeviction');
  if (!/--appendonly\s+yes/.test(line)) problems.push('redis runs without --appendonly yes');
  return problems;
}

// ---------------------------------------------------------------- docker-compose.yml

/** Resolves ${VAR}, ${VAR:-default} and ${VAR-default} as if the shell set nothing; ${VAR:?msg} is an error. */
function interpolate(value: string, where: string, problems: string[]): string {
  return value.replace(/\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (_, name: string, op: string | undefined, arg: string) => {
    if (op?.endsWith('?')) {
      problems.push(`${where}: \${${name}} must be set by the user (${arg}); give it a default that works`);
      return '';
    }
    return op ? arg : '';
  });
}

function composeEnv(service: Json, where: string, problems: string[]): Record<string, string> {
  const raw = service.environment;
  const entries: [string, string][] = Array.isArray(raw)
    ? raw.map((e) => {
        const [k, ...v] = str(e).split('=');
        return [k!, v.join('=')];
      })
    : Object.entries(obj(raw)).map(([k, v]) => [k, str(v)]);
  return Object.fromEntries(entries.map(([k, v]) => [k, interpolate(v, `${where} ${k}`, problems)]));
}

function containerPortOf(mapping: unknown): number {
  if (isObj(mapping)) return Number(mapping.target);
  const parts = str(mapping).split('/')[0]!.split(':');
  return Number(parts[parts.length - 1]);
}

/**
 * Checks a service's `*_ADDRESS` values (`host:port`) against the stack: `resolve` returns null when the host is a
 * service listening on that gRPC port, 'outside' when the host is no service of the stack, or what is wrong.
 */
function checkAddresses(
  config: Json,
  where: string,
  resolve: (host: string, port: number) => string | null,
  problems: string[],
): void {
  for (const [key, value] of Object.entries(config)) {
    if (!key.endsWith('_ADDRESS') || typeof value !== 'string') continue;
    const [host = '', port = ''] = value.split(':');
    const problem = resolve(host, Number(port));
    if (problem === null) continue;
    problems.push(`${where}: ${key}=${value}: ${problem === 'outside' ? 'no such service in the stack' : problem}`);
  }
}

function checkCompose(compose: Json, stages: Map<string, Stage>): string[] {
  const problems: string[] = [];
  const services = obj(compose.services);
  const configs = new Map<string, { app: string; config: Json }>();
  for (const [name, raw] of Object.entries(services)) {
    const service = obj(raw);
    const where = `docker-compose.yml services.${name}`;
    const build = obj(service.build);
    if (build.target === undefined) {
      if (name === 'redis') problems.push(...redisDurabilityProblems(arr(service.command).map(str)));
      continue;
    }
    const target = str(build.target);
    if (!stages.has(target)) {
      problems.push(`${where}: build target ${target} is not a stage of the Dockerfile`);
      continue;
    }
    const image = str(service.image).split(':')[0]!;
    if (image !== `fathom/${target}`) problems.push(`${where}: image ${image} is not fathom/${target}`);
    const app = appOfTarget(stages, target);
    if (!app) {
      problems.push(`${where}: target ${target} runs no FATHOM service`);
      continue;
    }
    const env = { ...stages.get(target)!.env, ...composeEnv(service, where, problems) };
    const config = checkEnv({ where, app, env }, problems);
    if (app !== MIGRATE && 'DATABASE_URL' in (SCHEMAS[app]?.shape ?? {})) {
      const migrate = obj(obj(service.depends_on).migrate);
      if (migrate.condition !== 'service_completed_successfully') {
        problems.push(`${where}: uses Postgres but does not depend on migrate (service_completed_successfully)`);
      }
    }
    if (!config) continue;
    configs.set(name, { app, config });
    problems.push(...grpcProblems(app, config, env, where));
    const { http, grpc } = servicePorts(config);
    const expected = [http, ...grpc];
    const published = [...arr(service.ports), ...arr(service.expose)].map(containerPortOf);
    if (!sameSet(published, expected)) {
      problems.push(
        `${where}: ports/expose [${published.join(', ')}] are not the service's ports [${expected.join(', ')}]`,
      );
    }
    const health = arr(obj(service.healthcheck).test).map(str).join(' ');
    const probe = /\/\/[^/:]+:(\d+)\/health/.exec(health);
    if (!probe) problems.push(`${where}: no healthcheck on /health`);
    else if (Number(probe[1]) !== http)
      problems.push(`${where}: healthcheck port ${probe[1]} is not HTTP_PORT ${http}`);
    if (app === 'learner-service') {
      const runsDir = str(config.RUNS_DIR);
      const mounted = arr(service.volumes).some((v) => (isObj(v) ? str(v.target) : str(v).split(':')[1]) === runsDir);
      if (!mounted) problems.push(`${where}: RUNS_DIR ${runsDir} is not on a volume`);
    }
    if (app === 'rollout-worker' && !(Number(obj(service.deploy).replicas) >= 2)) {
      problems.push(`${where}: rollout workers should run as several replicas (deploy.replicas)`);
    }
  }
  for (const [name, { config }] of configs) {
    checkAddresses(
      config,
      `docker-compose.yml services.${name}`,
      (host, port) => {
        const peer = configs.get(host);
        if (!peer) return 'outside';
        const grpc = servicePorts(peer.config).grpc;
        return grpc.includes(port) ? null : `${host}'s gRPC port is ${grpc.join(' or ') || 'not configured'}`;
      },
      problems,
    );
  }
  for (const app of Object.keys(SCHEMAS)) {
    if (![...configs.values()].some((c) => c.app === app)) problems.push(`docker-compose.yml: no service runs ${app}`);
  }
  if (![...Object.values(services)].some((s) => appOfTarget(stages, str(obj(obj(s).build).target)) === MIGRATE)) {
    problems.push('docker-compose.yml: no migrate service');
  }
  if (!('redis' in services)) problems.push('docker-compose.yml: no redis service');
  return problems;
}

/** Compose services of FATHOM apps, with their HTTP port (for the Prometheus check). */
function composeMetricsTargets(compose: Json, stages: Map<string, Stage>): Map<string, number> {
  const targets = new Map<string, number>();
  for (const [name, raw] of Object.entries(obj(compose.services))) {
    const service = obj(raw);
    const app = appOfTarget(stages, str(obj(service.build).target));
    if (!app || app === MIGRATE) continue;
    const env = { ...stages.get(str(obj(service.build).target))!.env, ...composeEnv(service, name, []) };
    const config = checkEnv({ where: name, app, env }, []);
    if (config) targets.set(name, servicePorts(config).http);
  }
  return targets;
}

// ---------------------------------------------------------------- deploy/prometheus.yml

function checkPrometheus(prometheus: Json, targets: Map<string, number>): string[] {
  const problems: string[] = [];
  const scraped = new Map<string, number[]>();
  const add = (host: string, port: number) => scraped.set(host, [...(scraped.get(host) ?? []), port]);
  for (const job of arr(prometheus.scrape_configs).map(obj)) {
    if (job.metrics_path !== undefined && job.metrics_path !== '/metrics') {
      problems.push(`deploy/prometheus.yml job ${str(job.job_name)}: metrics_path is not /metrics`);
    }
    for (const sc of arr(job.static_configs).map(obj)) {
      for (const t of arr(sc.targets).map(str)) add(t.split(':')[0]!, Number(t.split(':')[1]));
    }
    for (const dns of arr(job.dns_sd_configs).map(obj)) {
      for (const n of arr(dns.names).map(str)) add(n, Number(dns.port));
    }
  }
  for (const [service, port] of targets) {
    const ports = scraped.get(service);
    if (!ports) problems.push(`deploy/prometheus.yml: ${service} is not scraped`);
    else if (!ports.every((p) => p === port)) {
      problems.push(`deploy/prometheus.yml: ${service} scraped on ${ports.join(', ')}, its HTTP_PORT is ${port}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- k8s/

interface K8sObject {
  file: string;
  kind: string;
  name: string;
  body: Json;
}

function loadK8s(): { objects: K8sObject[]; files: string[] } {
  const files = readdirSync(join(root, 'k8s'))
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .sort();
  const objects = files.flatMap((file) =>
    parseAllDocuments(read(`k8s/${file}`)).map((doc) => {
      if (doc.errors.length > 0) throw new Error(`k8s/${file}: ${doc.errors[0]!.message}`);
      const body = obj(doc.toJS());
      return { file, kind: str(body.kind), name: str(obj(body.metadata).name), body };
    }),
  );
  return { objects, files };
}

/** The Dockerfile target an image `fathom/<target>:<tag>` was built from. */
const targetOfImage = (image: string) => image.replace(/^fathom\//, '').split(':')[0]!;

/** Resolves a container port reference (a number or a port name) to its number. */
function portNumber(ref: unknown, ports: Json[]): number | null {
  if (typeof ref === 'number') return ref;
  const named = ports.find((p) => p.name === ref);
  return named ? Number(named.containerPort) : null;
}

function k8sContainerEnv(container: Json, sources: Map<string, Json>, where: string, problems: string[]) {
  const env: Record<string, string> = {};
  for (const from of arr(container.envFrom).map(obj)) {
    const ref = str(obj(from.configMapRef).name) || str(obj(from.secretRef).name);
    const kind = from.configMapRef ? 'ConfigMap' : 'Secret';
    const data = sources.get(`${kind}/${ref}`);
    if (!data) problems.push(`${where}: envFrom ${kind} ${ref} does not exist`);
    else Object.assign(env, data);
  }
  for (const e of arr(container.env).map(obj)) {
    const name = str(e.name);
    const from = obj(e.valueFrom);
    const ref = obj(from.configMapKeyRef ?? from.secretKeyRef);
    if (e.valueFrom === undefined) {
      env[name] = str(e.value);
      continue;
    }
    const kind = from.configMapKeyRef ? 'ConfigMap' : 'Secret';
    const value = sources.get(`${kind}/${str(ref.name)}`)?.[str(ref.key)];
    if (value === undefined)
      problems.push(`${where}: ${name} refers to missing ${kind} key ${str(ref.name)}.${str(ref.key)}`);
    else env[name] = str(value);
  }
  return env;
}

/**
 * The Secret as an operator applies it: every `change-me-…` placeholder replaced (docs/DEPLOY.md), since the
 * services refuse the placeholders themselves (apps/admin-api config.spec.ts).
 */
function asReplaced(secret: Json): Json {
  return Object.fromEntries(
    Object.entries(secret).map(([key, value]) => [key, str(value).replaceAll('change-me', 'operator-set')]),
  );
}

function checkK8s(objects: K8sObject[], stages: Map<string, Stage>): string[] {
  const problems: string[] = [];
  const sources = new Map<string, Json>();
  for (const o of objects) {
    if (o.kind === 'ConfigMap') sources.set(`ConfigMap/${o.name}`, obj(o.body.data));
    if (o.kind === 'Secret')
      sources.set(`Secret/${o.name}`, asReplaced({ ...obj(o.body.data), ...obj(o.body.stringData) }));
  }
  const pvcs = new Set(objects.filter((o) => o.kind === 'PersistentVolumeClaim').map((o) => o.name));
  const services = objects.filter((o) => o.kind === 'Service');
  /** FATHOM workloads by Deployment name: app, parsed config, pod labels and container ports. */
  const deployed = new Map<string, { app: string; config: Json; labels: Json; ports: Json[] }>();

  for (const o of objects.filter((x) => ['Deployment', 'StatefulSet', 'Job'].includes(x.kind))) {
    const where = `k8s/${o.file} ${o.kind}/${o.name}`;
    const pod = obj(obj(o.body.spec).template);
    const podSpec = obj(pod.spec);
    const containers = arr(podSpec.containers).map(obj);
    for (const c of containers) {
      const requests = obj(obj(c.resources).requests);
      if (requests.cpu === undefined || requests.memory === undefined) {
        problems.push(`${where}: container ${str(c.name)} has no cpu/memory requests`);
      }
      if (o.kind !== 'Job' && (c.readinessProbe === undefined || c.livenessProbe === undefined)) {
        problems.push(`${where}: container ${str(c.name)} lacks a readiness or liveness probe`);
      }
    }
    if (o.name === 'redis') {
      for (const c of containers)
        problems.push(
          ...redisDurabilityProblems([...arr(c.command), ...arr(c.args)].map(str)).map((p) => `${where}: ${p}`),
        );
    }
    for (const c of containers.filter((x) => str(x.image).startsWith('fathom/'))) {
      const target = targetOfImage(str(c.image));
      if (!stages.has(target)) {
        problems.push(`${where}: image ${str(c.image)} is no target of the Dockerfile`);
        continue;
      }
      const app = appOfTarget(stages, target);
      if (!app) {
        problems.push(`${where}: target ${target} runs no FATHOM service`);
        continue;
      }
      const env = { ...stages.get(target)!.env, ...k8sContainerEnv(c, sources, where, problems) };
      const config = checkEnv({ where, app, env }, problems);
      if (!config) continue;
      problems.push(...grpcProblems(app, config, env, where));
      const ports = arr(c.ports).map(obj);
      const { http, grpc } = servicePorts(config);
      const expected = [http, ...grpc];
      const declared = ports.map((p) => Number(p.containerPort));
      if (!sameSet(declared, expected)) {
        problems.push(
          `${where}: containerPorts [${declared.join(', ')}] are not the service's ports [${expected.join(', ')}]`,
        );
      }
      for (const kind of ['readinessProbe', 'livenessProbe']) {
        const get = obj(obj(c[kind]).httpGet);
        const port = portNumber(get.port, ports);
        if (get.path !== '/health' || port !== http) {
          problems.push(`${where}: ${kind} is not GET /health on HTTP_PORT ${http}`);
        }
      }
      const annotations = obj(obj(pod.metadata).annotations);
      if (annotations['prometheus.io/scrape'] !== 'true' || Number(annotations['prometheus.io/port']) !== http) {
        problems.push(`${where}: pod is not annotated for Prometheus scraping on HTTP_PORT ${http}`);
      }
      if (GPU_SERVICES.includes(app)) {
        const limits = obj(obj(c.resources).limits);
        if (!(Number(limits['nvidia.com/gpu']) >= 1)) problems.push(`${where}: does not request nvidia.com/gpu`);
        if (config.EXECUTION_PROVIDER !== 'cuda' || !target.endsWith('-cuda')) {
          problems.push(`${where}: GPU pods need the -cuda image and EXECUTION_PROVIDER=cuda`);
        }
        const tolerates = arr(podSpec.tolerations).some((t) => obj(t).key === 'nvidia.com/gpu');
        if (Object.keys(obj(podSpec.nodeSelector)).length === 0 || !tolerates) {
          problems.push(`${where}: not pinned to the GPU node pool (nodeSelector + nvidia.com/gpu toleration)`);
        }
      }
      if (app === 'learner-service') {
        const mount = arr(c.volumeMounts)
          .map(obj)
          .find((m) => m.mountPath === config.RUNS_DIR);
        const volume = arr(podSpec.volumes)
          .map(obj)
          .find((v) => mount && v.name === mount.name);
        const claim = str(obj(volume?.persistentVolumeClaim).claimName);
        if (!pvcs.has(claim))
          problems.push(`${where}: RUNS_DIR ${str(config.RUNS_DIR)} is not on a PersistentVolumeClaim`);
      }
      if (o.kind === 'Deployment') deployed.set(o.name, { app, config, labels: obj(obj(pod.metadata).labels), ports });
    }
  }

  const selects = (s: K8sObject, labels: Json) => {
    const selector = obj(obj(s.body.spec).selector);
    return Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels[k] === v);
  };
  for (const s of services) {
    for (const d of [...deployed.values()].filter((x) => selects(s, x.labels))) {
      for (const p of arr(obj(s.body.spec).ports).map(obj)) {
        if (portNumber(p.targetPort ?? p.port, d.ports) === null) {
          problems.push(`k8s/${s.file} Service/${s.name}: targetPort ${str(p.targetPort)} is no port of ${d.app}`);
        }
      }
    }
  }
  for (const [name, d] of deployed) {
    checkAddresses(
      d.config,
      `k8s Deployment/${name}`,
      (host, port) => {
        const service = services.find((s) => s.name === host.split('.')[0]);
        if (!service) return 'outside';
        const sp = arr(obj(service.body.spec).ports)
          .map(obj)
          .find((p) => Number(p.port) === port);
        const peer = [...deployed.values()].find((x) => selects(service, x.labels));
        if (!sp || !peer) return `Service ${service.name} has no port ${port} in front of a FATHOM service`;
        const target = portNumber(sp.targetPort ?? sp.port, peer.ports);
        return target !== null && servicePorts(peer.config).grpc.includes(target)
          ? null
          : `not ${peer.app}'s gRPC port`;
      },
      problems,
    );
  }
  for (const app of Object.keys(SCHEMAS)) {
    if (![...deployed.values()].some((d) => d.app === app)) problems.push(`k8s: no Deployment runs ${app}`);
  }
  const migrates = objects
    .filter((o) => o.kind === 'Job')
    .flatMap((j) => arr(obj(obj(obj(j.body.spec).template).spec).containers).map(obj))
    .some((c) => str(c.image).startsWith('fathom/') && appOfTarget(stages, targetOfImage(str(c.image))) === MIGRATE);
  if (!migrates) problems.push('k8s: no Job runs the migrations');

  const rollout = [...deployed].find(([, d]) => d.app === 'rollout-worker');
  const scaled = objects.find((o) => o.kind === 'ScaledObject' || o.kind === 'HorizontalPodAutoscaler');
  if (!rollout || !scaled) problems.push('k8s: rollout workers are not autoscaled');
  else if (scaled.kind === 'ScaledObject') {
    const spec = obj(scaled.body.spec);
    if (obj(spec.scaleTargetRef).name !== rollout[0])
      problems.push('k8s ScaledObject: does not target the rollout workers');
    const trigger = arr(spec.triggers)
      .map(obj)
      .find((t) => t.type === 'redis');
    const list = `${str(rollout[1].config.QUEUE_PREFIX)}:rollout:wait`;
    if (str(obj(trigger?.metadata).listName) !== list) {
      problems.push(`k8s ScaledObject: no redis trigger on BullMQ's waiting list ${list}`);
    }
    const redis = new URL(str(rollout[1].config.REDIS_URL));
    const [host = '', port = ''] = str(obj(trigger?.metadata).address).split(':');
    if (host.split('.')[0] !== redis.hostname || port !== (redis.port || '6379')) {
      problems.push(`k8s ScaledObject: redis address ${host}:${port} is not the workers' REDIS_URL ${redis.host}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- Grafana

/** The metric type each declaration of libs/observability (`counter`, `gauge`, `histogram`) builds. */
const DECLARATION_TYPES = { counter: 'Counter', gauge: 'Gauge', histogram: 'Histogram' } as const;
type MetricType = (typeof DECLARATION_TYPES)[keyof typeof DECLARATION_TYPES];

/** The source files of apps/ and libs/, tests and generated code excluded, relative to the repository root. */
function sourceFiles(): string[] {
  return ['apps', 'libs'].flatMap((top) =>
    readdirSync(join(root, top), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !/node_modules|generated|\.(spec|test)\.ts$/.test(file))
      .map((file) => join(top, file)),
  );
}

/** The one file that builds prom-client metrics: the metric declarations, which give every name its prefix. */
const METRIC_DECLARATIONS_FILE = 'libs/observability/src/metrics.ts';

/** Metric names declared in the source (`gauge('x', ...)`), with the prefix the declaration applies. */
function registeredMetrics(): Map<string, MetricType> {
  const metrics = new Map<string, MetricType>();
  for (const file of sourceFiles()) {
    for (const m of read(file).matchAll(/\b(counter|gauge|histogram)\(\s*['"]([\w:]+)['"]/g)) {
      metrics.set(METRIC_PREFIX + m[2]!, DECLARATION_TYPES[m[1] as keyof typeof DECLARATION_TYPES]);
    }
  }
  return metrics;
}

/** Files other than the declarations' that build a prom-client metric themselves, bypassing their prefix. */
function metricsBuiltOutsideTheDeclarations(): string[] {
  return sourceFiles().filter(
    (file) => file !== METRIC_DECLARATIONS_FILE && /new\s+(Counter|Gauge|Histogram|Summary)\b/.test(read(file)),
  );
}

const PROMQL_KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/** Metric names a PromQL expression selects (strings, label matchers, ranges, groupings and functions removed). */
function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/(?<![\w.])[a-zA-Z_:][\w:]*/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_KEYWORDS.has(m[0].toLowerCase())) continue;
    names.push(m[0]);
  }
  return names;
}

/** Panels (rows included) of a dashboard, flattened. */
function panelsOf(dashboard: Json): Json[] {
  return arr(dashboard.panels).flatMap((p) => [obj(p), ...arr(obj(p).panels).map(obj)]);
}

function checkDashboard(dashboard: Json, metrics: Map<string, MetricType>, datasourceUid: string): string[] {
  const problems: string[] = [];
  const used = new Set<string>();
  for (const panel of panelsOf(dashboard)) {
    for (const target of arr(panel.targets).map(obj)) {
      const where = `dashboard panel "${str(panel.title)}" ${str(target.refId)}`;
      const uid = str(obj(target.datasource ?? panel.datasource).uid);
      if (uid !== datasourceUid)
        problems.push(`${where}: datasource uid ${uid} is not the provisioned ${datasourceUid}`);
      for (const name of promqlMetricNames(str(target.expr))) {
        if (PROMETHEUS_SERIES.has(name)) continue;
        const suffix = /_(bucket|sum|count)$/.exec(name);
        const base = suffix && metrics.has(name.slice(0, suffix.index)) ? name.slice(0, suffix.index) : name;
        const type = metrics.get(base);
        used.add(base);
        if (!type) problems.push(`${where}: ${name} is not registered by any service`);
        else if (type === 'Histogram' && base === name) {
          problems.push(`${where}: ${name} is a ${type}; query ${name}_bucket, _sum or _count`);
        } else if (type !== 'Histogram' && base !== name) {
          problems.push(`${where}: ${name}: ${base} is a ${type}, it has no ${suffix![1]} series`);
        }
      }
    }
  }
  for (const name of DASHBOARD_METRICS) if (!used.has(name)) problems.push(`dashboard: no panel shows ${name}`);
  return problems;
}

// ---------------------------------------------------------------- the tests

const stages = parseDockerfile(read('Dockerfile'));
const compose = obj(parse(read('docker-compose.yml'), { merge: true }));
const { objects: k8s, files: k8sFiles } = loadK8s();
const prometheus = obj(parse(read('deploy/prometheus.yml')));
const dashboard = obj(JSON.parse(read('deploy/grafana/dashboards/fathom.json')));
const datasource = obj(arr(obj(parse(read('deploy/grafana/provisioning/datasources/prometheus.yml'))).datasources)[0]);
const mutated = <T>(value: T, change: (copy: T) => void): T => {
  const copy = structuredClone(value);
  change(copy);
  return copy;
};
const composeService = (c: Json, name: string) => obj(obj(c.services)[name]);
const k8sContainer = (objects: K8sObject[], kind: string, name: string) =>
  obj(
    arr(obj(obj(obj(objects.find((o) => o.kind === kind && o.name === name)!.body.spec).template).spec).containers)[0],
  );

describe('Dockerfile', () => {
  it('has a target per deployed service, each running its app without the Node snapshot, as non-root', () => {
    for (const app of Object.keys(SCHEMAS)) {
      const targets = [...stages.keys()].filter((t) => appOfTarget(stages, t) === app);
      expect(targets, app).not.toHaveLength(0);
      for (const t of targets) expect(stages.get(t)!.cmd, t).toContain('--no-node-snapshot');
    }
    expect([...stages.keys()].some((t) => appOfTarget(stages, t) === MIGRATE)).toBe(true);
    expect(read('Dockerfile')).toMatch(/^USER 1000:1000$/m);
    expect(read('Dockerfile')).toMatch(/ONNXRUNTIME_NODE_INSTALL=cuda12/);
  });

  it('knows a config schema for every app that has one', () => {
    const apps = readdirSync(join(root, 'apps')).filter((a) => {
      try {
        return read(`apps/${a}/src/config.ts`).includes('ConfigSchema');
      } catch {
        return false;
      }
    });
    expect(apps.sort()).toEqual(Object.keys(SCHEMAS).sort());
  });

  it('runs the compiled services without dev dependencies: every target copies a pruned /app, and what the bundles load is a production dependency', async () => {
    const targets = [...stages.keys()].filter((t) => appOfTarget(stages, t) !== null);
    expect(targets.flatMap((t) => devDependencyProblems(stages, t))).toEqual([]);
    for (const t of targets) expect(stages.get(t)!.cmd!.join(' '), t).not.toMatch(/tsx|\.ts\b/);
    const { metafile } = await bundles();
    expect(Object.keys(metafile.outputs).filter((f) => f.endsWith('.mjs'))).toHaveLength(Object.keys(ENTRIES).length);
    const pkg = obj(JSON.parse(read('package.json')));
    expect(runtimeDependencyProblems(pkg, metafile)).toEqual([]);
    expect(Object.keys(obj(pkg.dependencies))).not.toContain('tsx');

    const unpruned = parseDockerfile(read('Dockerfile').replace(/npm prune --omit=dev/g, 'npm prune'));
    expect(devDependencyProblems(unpruned, 'reward-service')).toEqual([
      'reward-service: its /app comes from stage prod-deps, which keeps the dev dependencies (no npm prune --omit=dev)',
    ]);
    const fromSource = parseDockerfile(
      read('Dockerfile').replace('dist/env-service.mjs', 'apps/env-service/src/main.ts'),
    );
    expect([...fromSource.keys()].filter((t) => appOfTarget(fromSource, t) === 'env-service')).toEqual([]);
    const withoutBullmq = mutated(pkg, (p) => delete obj(p.dependencies).bullmq);
    expect(runtimeDependencyProblems(withoutBullmq, metafile)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^dist\/learner-service\.mjs imports bullmq, which is not a production dependency$/),
      ]),
    );
  }, 60_000);

  it("compiles the services with decorator metadata: each Nest class's constructor types, as tsc emits them", async () => {
    const { texts } = await bundles();
    const services = Object.keys(ENTRIES).filter((name) => name !== 'cli' && name !== 'sandbox-worker');
    expect(services).toHaveLength(5);
    for (const name of services) {
      const text = texts.get(`dist/${name}.mjs`) ?? '';
      expect(paramTypesOf(text, 'OpsController'), name).toEqual(['HealthChecks', 'Registry']);
    }
    const env = texts.get('dist/env-service.mjs') ?? '';
    expect(paramTypesOf(env, 'EnvGrpcController')).toEqual([
      'EpisodeService',
      'EnvServiceConfig',
      'EnvMetrics',
      'Logger',
    ]);
    expect(paramTypesOf(texts.get('dist/admin-api.mjs') ?? '', 'RunsController')).toEqual(['RunService']);
  }, 60_000);
});

/** The services bundled in memory, once for the tests that read them. */
let bundled: ReturnType<typeof bundleAll> | undefined;
const bundles = () => (bundled ??= bundleAll({ write: false }));

/**
 * The classes TypeScript's `design:paramtypes` metadata names for `cls`'s constructor in a bundle, without the digits
 * esbuild appends to a name it renames.
 */
function paramTypesOf(bundle: string, cls: string): string[] {
  const decorated = new RegExp(`\\n${cls}\\d* = __decorate\\d*\\(\\[([\\s\\S]*?)\\n\\], ${cls}\\d*\\);`).exec(bundle);
  const metadata = /__metadata\d*\("design:paramtypes", \[(.*)\]\)/.exec(decorated?.[1] ?? '');
  // An imported class is guarded (`typeof (_a = typeof X !== "undefined" && X) === "function" ? _a : Object`), a class
  // of the same source is named as it is.
  const names = (metadata?.[1] ?? '').split(', ').map((t) => /^typeof \(\w+ = typeof (\w+) /.exec(t)?.[1] ?? t);
  return names.filter((n) => n !== '').map((n) => n.replace(/\d+$/, ''));
}

describe('docker-compose.yml', () => {
  it('matches the Dockerfile and the services config schemas', () => {
    expect(checkCompose(compose, stages)).toEqual([]);
  });

  it('fails on a variable the schema does not have and on a missing required one', () => {
    const problems = checkCompose(
      mutated(compose, (c) => {
        const env = obj(composeService(c, 'env-service').environment);
        env.REDIS_URL = 'redis://redis:6379';
        delete env.INFERENCE_ADDRESS;
        const admin = obj(composeService(c, 'admin-api').environment);
        delete admin.ADMIN_TOKEN;
        delete admin.ADMIN_TOKEN_FILE;
      }),
      stages,
    );
    expect(problems.join('\n')).toMatch(/env-service: REDIS_URL is not a key of env-service's config schema/);
    expect(problems.join('\n')).toMatch(/env-service: INFERENCE_ADDRESS is required by env-service but not set/);
    expect(problems.join('\n')).toMatch(
      /admin-api: ADMIN_TOKEN is required by admin-api but not set \(required when NODE_ENV=production\)/,
    );
  });

  it('fails on ports that are not the configured ones, a wrong gRPC address, a missing target and a Redis that evicts', () => {
    const problems = checkCompose(
      mutated(compose, (c) => {
        obj(composeService(c, 'learner-service').environment).GRPC_PORT = '50062';
        obj(composeService(c, 'env-service').environment).HTTP_PORT = '8001';
        obj(composeService(c, 'rollout-worker').environment).POLICY_ADDRESS = 'learner-service:50071';
        obj(composeService(c, 'admin-api').build).target = 'admin';
        composeService(c, 'redis').command = ['redis-server', '--appendonly', 'yes'];
      }),
      stages,
    ).join('\n');
    expect(problems).toMatch(
      /learner-service: ports\/expose \[9300, 50061\] are not the service's ports \[9300, 50062\]/,
    );
    expect(problems).toMatch(/POLICY_ADDRESS=learner-service:50071: learner-service's gRPC port is 50062/);
    expect(problems).toMatch(/env-service: healthcheck port 8000 is not HTTP_PORT 8001/);
    expect(problems).toMatch(/build target admin is not a stage/);
    expect(problems).toMatch(/redis runs without --maxmemory-policy noeviction/);
  });

  it('fails on a gRPC server left on loopback and on a service not given GRPC_TOKEN', () => {
    const problems = checkCompose(
      mutated(compose, (c) => {
        delete obj(composeService(c, 'learner-service').environment).GRPC_HOST;
        delete obj(composeService(c, 'rollout-worker').environment).GRPC_TOKEN;
      }),
      stages,
    ).join('\n');
    expect(problems).toMatch(/learner-service: GRPC_HOST 127.0.0.1 is loopback/);
    expect(problems).toMatch(/rollout-worker: GRPC_TOKEN is not passed to it/);
  });

  it("fails when the env-service's llm() sub-calls do not reach the rollout workers' gRPC Inference", () => {
    const outside = checkCompose(
      mutated(compose, (c) => {
        obj(composeService(c, 'env-service').environment).INFERENCE_ADDRESS = 'inference.invalid:50081';
      }),
      stages,
    ).join('\n');
    expect(outside).toMatch(/INFERENCE_ADDRESS=inference.invalid:50081: no such service in the stack/);
    const wrongPort = checkCompose(
      mutated(compose, (c) => {
        obj(composeService(c, 'env-service').environment).INFERENCE_ADDRESS = 'rollout-worker:9100';
        composeService(c, 'rollout-worker').expose = ['9100'];
      }),
      stages,
    ).join('\n');
    expect(wrongPort).toMatch(/INFERENCE_ADDRESS=rollout-worker:9100: rollout-worker's gRPC port is 50081/);
    expect(wrongPort).toMatch(/rollout-worker: ports\/expose \[9100\] are not the service's ports \[9100, 50081\]/);
  });
});

describe('k8s/', () => {
  it('lists every manifest in kustomization.yaml', () => {
    const kustomization = obj(parse(read('k8s/kustomization.yaml')));
    expect(arr(kustomization.resources).map(str).sort()).toEqual(k8sFiles);
  });

  it('matches the Dockerfile and the services config schemas', () => {
    expect(checkK8s(k8s, stages)).toEqual([]);
  });

  it('fails without GPU requests, probes, or with a ConfigMap key the schema does not have', () => {
    const problems = checkK8s(
      mutated(k8s, (objects) => {
        delete obj(obj(k8sContainer(objects, 'Deployment', 'rollout-worker').resources).limits)['nvidia.com/gpu'];
        delete k8sContainer(objects, 'Deployment', 'reward-service').readinessProbe;
        obj(objects.find((o) => o.kind === 'ConfigMap' && o.name === 'admin-api-config')!.body.data).POLICY_ADDRESS =
          'learner-service:50061';
      }),
      stages,
    ).join('\n');
    expect(problems).toMatch(/Deployment\/rollout-worker: does not request nvidia.com\/gpu/);
    expect(problems).toMatch(
      /Deployment\/reward-service: container reward-service lacks a readiness or liveness probe/,
    );
    expect(problems).toMatch(/Deployment\/admin-api: POLICY_ADDRESS is not a key of admin-api's config schema/);
  });

  it('fails on a probe off the HTTP port, an unknown image, an address on the wrong port and a scaler on another list', () => {
    const problems = checkK8s(
      mutated(k8s, (objects) => {
        obj(obj(k8sContainer(objects, 'Deployment', 'learner-service').livenessProbe).httpGet).port = 'grpc';
        k8sContainer(objects, 'Deployment', 'admin-api').image = 'fathom/admin:0.1.0';
        obj(
          objects.find((o) => o.kind === 'ConfigMap' && o.name === 'rollout-worker-config')!.body.data,
        ).POLICY_ADDRESS = 'learner-service:9300';
        const scaled = objects.find((o) => o.kind === 'ScaledObject')!;
        obj(obj(arr(obj(scaled.body.spec).triggers)[0]).metadata).listName = 'bull:rollout:wait';
      }),
      stages,
    ).join('\n');
    expect(problems).toMatch(/Deployment\/learner-service: livenessProbe is not GET \/health on HTTP_PORT 9300/);
    expect(problems).toMatch(/image fathom\/admin:0.1.0 is no target of the Dockerfile/);
    expect(problems).toMatch(/POLICY_ADDRESS=learner-service:9300: not learner-service's gRPC port/);
    expect(problems).toMatch(/no redis trigger on BullMQ's waiting list fathom:rollout:wait/);
  });

  it('fails on a gRPC server left on loopback and on a service not given GRPC_TOKEN', () => {
    const problems = checkK8s(
      mutated(k8s, (objects) => {
        delete obj(objects.find((o) => o.kind === 'ConfigMap' && o.name === 'env-service-config')!.body.data).GRPC_HOST;
        const env = k8sContainer(objects, 'Deployment', 'env-service');
        env.env = arr(env.env).filter((e) => obj(e).name !== 'GRPC_TOKEN');
      }),
      stages,
    ).join('\n');
    expect(problems).toMatch(/Deployment\/env-service: GRPC_HOST 127.0.0.1 is loopback/);
    expect(problems).toMatch(/Deployment\/env-service: GRPC_TOKEN is not passed to it/);
  });

  it("fails when the rollout workers' Service or pods do not expose gRPC Inference", () => {
    const noServicePort = checkK8s(
      mutated(k8s, (objects) => {
        const service = objects.find((o) => o.kind === 'Service' && o.name === 'rollout-worker')!;
        const spec = obj(service.body.spec);
        spec.ports = arr(spec.ports).filter((p) => obj(p).name !== 'inference');
      }),
      stages,
    ).join('\n');
    expect(noServicePort).toMatch(
      /INFERENCE_ADDRESS=rollout-worker:50081: Service rollout-worker has no port 50081 in front of a FATHOM service/,
    );
    const noContainerPort = checkK8s(
      mutated(k8s, (objects) => {
        const container = k8sContainer(objects, 'Deployment', 'rollout-worker');
        container.ports = arr(container.ports).filter((p) => obj(p).name !== 'inference');
      }),
      stages,
    ).join('\n');
    expect(noContainerPort).toMatch(
      /Deployment\/rollout-worker: containerPorts \[9100\] are not the service's ports \[9100, 50081\]/,
    );
  });
});

describe('deploy/prometheus.yml', () => {
  const targets = composeMetricsTargets(compose, stages);

  it('scrapes every service on its HTTP_PORT', () => {
    expect([...targets.keys()].sort()).toEqual(Object.keys(SCHEMAS).sort());
    expect(checkPrometheus(prometheus, targets)).toEqual([]);
  });

  it('fails when a service is missing or scraped on the wrong port', () => {
    const problems = checkPrometheus(
      mutated(prometheus, (p) => {
        const jobs = arr(p.scrape_configs).map(obj);
        p.scrape_configs = jobs.filter((j) => j.job_name !== 'admin-api');
        obj(arr(jobs.find((j) => j.job_name === 'rollout-worker')!.dns_sd_configs)[0]).port = 9101;
      }),
      targets,
    ).join('\n');
    expect(problems).toMatch(/admin-api is not scraped/);
    expect(problems).toMatch(/rollout-worker scraped on 9101, its HTTP_PORT is 9100/);
  });
});

describe('Grafana dashboard', () => {
  const metrics = registeredMetrics();
  const uid = str(datasource.uid);

  it('is provisioned from the folder docker-compose mounts', () => {
    const provider = obj(arr(obj(parse(read('deploy/grafana/provisioning/dashboards/fathom.yml'))).providers)[0]);
    const grafana = arr(composeService(compose, 'grafana').volumes).map(str);
    expect(grafana).toContain(`./deploy/grafana/dashboards:${str(obj(provider.options).path)}:ro`);
    expect(grafana).toContain('./deploy/grafana/provisioning:/etc/grafana/provisioning:ro');
    expect(str(datasource.url)).toBe('http://prometheus:9090');
  });

  it('reads PromQL metric names', () => {
    expect(
      promqlMetricNames(
        'histogram_quantile(0.95, sum by (le, queue) (rate(fathom_queue_job_seconds_bucket{state="a b"}[$__rate_interval]))) / on (x) up offset 5m',
      ),
    ).toEqual(['fathom_queue_job_seconds_bucket', 'up']);
  });

  it('reads the metrics the services declare, each through a metric declaration', () => {
    expect(metrics.get('fathom_env_step_seconds')).toBe('Histogram');
    expect(metrics.get('fathom_admin_errors_total')).toBe('Counter');
    expect(metricsBuiltOutsideTheDeclarations()).toEqual([]);
  });

  it('queries only metrics the services register, with the series their type has', () => {
    expect(checkDashboard(dashboard, metrics, uid)).toEqual([]);
  });

  it('fails on an unknown metric, a histogram queried as a gauge and a foreign datasource', () => {
    const problems = checkDashboard(
      mutated(dashboard, (d) => {
        const panel = obj(arr(d.panels)[1]);
        panel.targets = [
          { refId: 'A', datasource: { uid }, expr: 'sum(rate(fathom_not_a_metric_total[5m]))' },
          { refId: 'B', datasource: { uid }, expr: 'fathom_queue_job_seconds' },
          { refId: 'C', datasource: { uid: 'elsewhere' }, expr: 'up' },
        ];
      }),
      metrics,
      uid,
    ).join('\n');
    expect(problems).toMatch(/fathom_not_a_metric_total is not registered/);
    expect(problems).toMatch(/fathom_queue_job_seconds is a Histogram/);
    expect(problems).toMatch(/datasource uid elsewhere/);
  });
});
