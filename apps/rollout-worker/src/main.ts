import { runServiceMain } from '@fathom/runtime';
import { loadConfig } from './config';
import { startRolloutWorker } from './worker';

await runServiceMain('rollout-worker', loadConfig, startRolloutWorker);
