import { onParentGone } from '@fathom/runtime';
import { startAdminApi } from './bootstrap';
import { ConfigError, loadConfig } from './config';
import { DatabaseNotReadyError } from './ops/schema-check';

/** Entry point: `node --no-node-snapshot --import tsx apps/admin-api/src/main.ts` (npm start in this folder). */
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
  let api;
  try {
    api = await startAdminApi(config);
  } catch (error) {
    if (error instanceof DatabaseNotReadyError || error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(error instanceof ConfigError ? 2 : 1);
    }
    throw error;
  }
  const stop = () => void api.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  onParentGone(stop);
}

void main();
