import { runServiceMain } from '@fathom/runtime';
import { loadConfig } from './config';
import { startLearnerService } from './server';

await runServiceMain('learner-service', loadConfig, startLearnerService);
