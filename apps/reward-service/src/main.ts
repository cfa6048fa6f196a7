import { runServiceMain } from '@fathom/runtime';
import { loadConfig } from './config';
import { startRewardService } from './server';

await runServiceMain('reward-service', loadConfig, startRewardService);
