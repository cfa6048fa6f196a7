export { RolloutWorkerConfigSchema, loadConfig, type RolloutWorkerConfig } from './config';
export { startRolloutWorker } from './worker';
