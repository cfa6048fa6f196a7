export { RolloutWorkerConfigSchema, loadConfig, type RolloutWorkerConfig } from './config';
export { startRolloutWorker, type RolloutWorker } from './worker';
