export { RolloutWorkerConfigSchema, loadConfig, type RolloutWorkerConfig } from './config';
export { startRolloutWorker } from './worker';
export { checkpointModelLoader } from './inference/inference.model';
export { startInferenceServer, type InferenceServerHandle } from './inference/inference.server';
