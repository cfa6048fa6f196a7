import { createLogger } from '@fathom/observability';
import { ConfigError, onTerminationSignal } from '@fathom/runtime';
import { loadConfig } from './config';
import { startRolloutWorker } from './worker';

try {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'rollout-worker', level: config.LOG_LEVEL });
  const worker = await startRolloutWorker(config, logger);
  onTerminationSignal(logger, () => worker.close());
} catch (error) {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`rollout-worker: ${message}\n`);
  process.exit(1);
}
