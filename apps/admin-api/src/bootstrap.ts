import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createLogger, NestJsonLogger } from '@fathom/observability';
import {
  createPrismaClient,
  EpisodeRepository,
  PolicyVersionRepository,
  RunRepository,
  StepRepository,
} from '@fathom/persistence';
import { BullMqTransport, JobProducer, type JobTransport } from '@fathom/queue';
import { dependencyChecks, useJsonBodyParser } from '@fathom/runtime';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { AdminApiModule } from './app.module';
import { resolveAdminToken } from './admin-token';
import { listenHost, type AdminApiConfig } from './config';
import { mountDashboard } from './dashboard/dashboard.assets';
import { EvalResultsReader } from './evals/eval-results.reader';
import { fsDataPathProbe, parseDataRoots } from './data-roots';
import { EvalService } from './evals/eval.service';
import {
  bearerAuth,
  bodyParserErrors,
  jsonBodiesOnly,
  loopbackHostsWithoutToken,
  requestLog,
  sameOriginWithoutToken,
} from './http/middleware';
import { AdminMetrics } from './metrics';
import { QueueService } from './ops/queue.service';
import { assertSchemaApplied } from './ops/schema-check';
import { LatestStepReader } from './runs/latest-step.reader';
import { RunService } from './runs/run.service';
import { StepSeriesReader } from './runs/step-series.reader';

export interface RunningAdminApi {
  app: NestExpressApplication;
  /** The bound port (useful when the config asked for port 0). */
  port: number;
  metrics: AdminMetrics;
  /** Stops accepting requests, then closes the database and Redis connections. Idempotent. */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Where log lines go (default stdout). */
  logWrite?: (line: string) => void;
  /** The job transport (default: BullMQ on REDIS_URL under QUEUE_PREFIX). */
  transport?: JobTransport;
}

/**
 * Starts the admin API from a validated config: the token (ADMIN_TOKEN, or ADMIN_TOKEN_FILE, generated when
 * missing; a ConfigError when unusable), Prisma (refusing a database that lacks migrations), the queue transport,
 * the services, then Nest. Without a token it listens on loopback only and logs so.
 */
export async function startAdminApi(config: AdminApiConfig, options: StartOptions = {}): Promise<RunningAdminApi> {
  const logger = createLogger({ service: 'admin-api', level: config.LOG_LEVEL, write: options.logWrite });
  const { token, source } = await resolveAdminToken(config);
  if (source === 'generated') {
    logger.info('generated an admin token; send it as "Authorization: Bearer <token>"', {
      file: config.ADMIN_TOKEN_FILE,
    });
  }
  const prisma = createPrismaClient(config.DATABASE_URL);
  const transport =
    options.transport ??
    new BullMqTransport({
      redisUrl: config.REDIS_URL,
      prefix: config.QUEUE_PREFIX,
      onError: (error, where) => logger.warn('redis connection error', { where, reason: error.message }),
    });
  const metrics = new AdminMetrics(transport, config.DEPENDENCY_TIMEOUT_MS);
  const runRepository = new RunRepository(prisma);
  const dataRoots = parseDataRoots(config.DATA_ROOTS);
  const runs = new RunService({
    runs: runRepository,
    steps: new StepRepository(prisma),
    episodes: new EpisodeRepository(prisma),
    policies: new PolicyVersionRepository(prisma),
    latestSteps: new LatestStepReader(prisma),
    stepSeries: new StepSeriesReader(prisma),
    newRunId: () => `run-${randomUUID()}`,
    dataRoots,
    paths: fsDataPathProbe,
    events: new JobProducer(transport),
    logger,
  });
  const evals = new EvalService(
    runRepository,
    new JobProducer(transport),
    () => randomUUID(),
    new EvalResultsReader(prisma),
    dataRoots,
  );
  const queues = new QueueService(transport, config.DEPENDENCY_TIMEOUT_MS);
  const checks = dependencyChecks({ transport, prisma, queue: 'rollout' });

  const closeConnections = async () => {
    await Promise.allSettled([prisma.$disconnect(), options.transport ? Promise.resolve() : transport.close()]);
  };
  try {
    await assertSchemaApplied(prisma, config.DATABASE_URL);
  } catch (error) {
    await closeConnections();
    throw error;
  }

  const app = await NestFactory.create<NestExpressApplication>(
    AdminApiModule.create({ config, logger, metrics, runs, evals, queues, checks }),
    { bodyParser: false, logger: new NestJsonLogger(logger) },
  );
  // BigInt ids (episodes, eval rows) leave as decimal strings; JSON has no 64-bit integers.
  app.set('json replacer', (_key: string, value: unknown) => (typeof value === 'bigint' ? value.toString() : value));
  app.use(requestLog(logger, metrics));
  app.use(loopbackHostsWithoutToken(token, config.ADMIN_ALLOWED_HOSTS, metrics));
  app.use(bearerAuth(token, metrics));
  app.use(sameOriginWithoutToken(token, metrics));
  mountDashboard(app);
  app.use(jsonBodiesOnly(metrics));
  useJsonBodyParser(app, { limit: config.MAX_BODY_BYTES, type: 'application/json' });
  app.use(bodyParserErrors(metrics));

  const host = listenHost(config);
  try {
    await app.listen(config.HTTP_PORT, host);
  } catch (error) {
    await app.close().catch(() => undefined);
    await closeConnections();
    throw error;
  }
  const port = (app.getHttpServer().address() as AddressInfo).port;
  logger.info('admin-api listening', { host, port, auth: token === undefined ? 'off' : 'bearer' });
  if (token === undefined) {
    logger.warn(
      `no ADMIN_TOKEN: every route is open, so the admin API is reachable on loopback (${host}) only; ` +
        'set ADMIN_TOKEN (16+ characters) to serve other hosts',
      { host, port },
    );
  }

  let closed: Promise<void> | undefined;
  return {
    app,
    port,
    metrics,
    close: () =>
      (closed ??= (async () => {
        await app.close();
        await closeConnections();
      })()),
  };
}
