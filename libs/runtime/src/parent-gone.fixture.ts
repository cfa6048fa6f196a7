/**
 * For parent-gone.test.ts. As `parent`: launches itself as a service in its own process group, prints the
 * service's pid, and waits to be killed. As the service: logs its ready line and runs until told to stop.
 */
import { fileURLToPath } from 'node:url';
import { createLogger } from '@fathom/observability';
import { launchService } from './service.process';
import { onTerminationSignal } from './shutdown';

const self = fileURLToPath(import.meta.url);
if (process.argv[2] === 'parent') {
  const service = await launchService({
    name: 'orphan-check',
    entry: self,
    cwd: process.cwd(),
    env: {},
    readyMessage: 'ready',
    ownProcessGroup: true,
  });
  process.stdout.write(`${service.child.pid}\n`);
  setInterval(() => undefined, 60_000);
} else {
  const logger = createLogger({ service: 'orphan-check' });
  onTerminationSignal(logger, async () => undefined);
  setInterval(() => undefined, 60_000);
  logger.info('ready');
}
