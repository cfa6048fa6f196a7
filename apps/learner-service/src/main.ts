import { createLogger } from '@fathom/observability';
import { ConfigError, onTerminationSignal } from '@fathom/runtime';
import { loadConfig } from './config';
import { startLearnerService } from './server';

try {
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'learner-service', level: config.LOG_LEVEL });
  const service = await startLearnerService(config, logger);
  onTerminationSignal(logger, () => service.close());
} catch (error) {
  const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.stack : String(error);
  process.stderr.write(`learner-service: ${message}\n`);
  process.exit(1);
}
