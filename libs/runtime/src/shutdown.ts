import { createLogger, type Logger, type LogLevel } from '@fathom/observability';
import { ConfigError } from './env-config';

/**
 * Calls `stop` once when the process that launched this one with an IPC channel (`launchService`) is gone, however
 * it died. A process started without one (Kubernetes, docker, a shell) is unaffected.
 */
export function onParentGone(stop: () => void): void {
  if (process.channel === undefined) return;
  // The channel must not keep the service alive by itself, only tell it when the parent is gone.
  process.channel.unref();
  process.once('disconnect', stop);
}

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT (Kubernetes and docker stop send SIGTERM), or when the
 * launching process is gone (`onParentGone`), then exits 0, or 1 if shutdown threw. A second signal while shutting
 * down exits at once with 130.
 */
export function onTerminationSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals | 'parent gone') => {
    if (stopping) {
      logger.warn('second signal: exiting without waiting', { signal });
      process.exit(130);
    }
    stopping = true;
    logger.info('shutting down', { signal });
    shutdown().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('shutdown failed', { error });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handle);
  process.once('SIGINT', handle);
  onParentGone(() => handle('parent gone'));
}

/**
 * A service's main: validates the environment with `load`, starts the service with a JSON logger, and closes it on
 * SIGTERM/SIGINT. A bad environment or a failed start prints one line (the config error's message, or the stack)
 * and exits 1.
 */
export async function runServiceMain<C extends { LOG_LEVEL: LogLevel }>(
  service: string,
  load: (env: Record<string, string | undefined>) => C,
  start: (config: C, logger: Logger) => Promise<{ close(): Promise<void> }>,
): Promise<void> {
  try {
    const config = load(process.env);
    const logger = createLogger({ service, level: config.LOG_LEVEL });
    const running = await start(config, logger);
    onTerminationSignal(logger, () => running.close());
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
    process.stderr.write(`${service}: ${message}\n`);
    process.exit(1);
  }
}
