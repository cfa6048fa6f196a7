import { runServiceMain } from '@fathom/runtime';
import { startAdminApi } from './bootstrap';
import { loadConfig } from './config';

await runServiceMain('admin-api', loadConfig, (config) => startAdminApi(config));
