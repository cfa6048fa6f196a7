import { onParentGone } from '@fathom/runtime';
import { startEnvService } from './bootstrap';
import { ConfigError, loadConfig } from './config';

/** Entry point: `node --no-node-snapshot --import tsx apps/env-service/src/main.ts` (npm start in this folder). */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const service = await startEnvService(config);
  const stop = () => void service.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  onParentGone(stop);
}

void main();
