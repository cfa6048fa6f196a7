import { runServiceMain } from '@fathom/runtime';
import { startEnvService } from './bootstrap';
import { loadConfig } from './config';

await runServiceMain('env-service', loadConfig, (config) => startEnvService(config));
