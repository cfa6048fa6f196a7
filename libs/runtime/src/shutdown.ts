import type { Logger } from '@fathom/observability';

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT (Kubernetes and docker stop send SIGTERM), then exits 0, or 1
 * if shutdown threw. A second signal while shutting down exits at once with 130.
 */
export function onTerminationSignal(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false;
  const handle = (signal: NodeJS.Signals) => {
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
}
